import type { PageMemory } from '../../lambda/page/contract.js';
import { $, memoriesOf } from './dom.js';
import { state } from './state.js';

/** Several at once: what the selection bar offers, each control that is off saying why in text. */

const boxes = () => [...document.querySelectorAll<HTMLInputElement>('#memories .select input')];

export function selectionBar(): void {
  const chosen = [...state.selected.values()];
  const all = $<HTMLInputElement>('select-all');
  const shown = boxes();
  all.checked = shown.length > 0 && shown.every((b) => b.checked);
  all.indeterminate = !all.checked && shown.some((b) => b.checked);
  $('select-all-row').hidden = shown.length === 0;
  $('selection').hidden = chosen.length === 0;
  if (chosen.length === 0) return;
  $('selection-count').textContent = `${memoriesOf(chosen.length)} selected`;
  const toPin = chosen.filter((m) => !m.pinned);
  const refused = toPin.filter((m) => m.outlook.pin.refusal === 'replaced').length;
  const toUnpin = chosen.length - toPin.length;
  const pins = state.overview?.pins;
  const room = pins?.room ?? 0;
  const reasons: string[] = [];
  const pin = $<HTMLButtonElement>('pin-selected');
  pin.textContent = toPin.length > 0 ? `Pin ${toPin.length}` : 'Pin selected';
  pin.disabled = toPin.length === 0 || refused > 0 || toPin.length > room;
  if (toPin.length === 0) reasons.push('Pin is off: every selected memory is pinned already.');
  else if (refused > 0)
    reasons.push(
      `Pin is off: ${memoriesOf(refused)} of the selection ${refused === 1 ? 'was' : 'were'} replaced by a newer memory; recall never returns ${refused === 1 ? 'it' : 'them'}. Untick ${refused === 1 ? 'it' : 'them'} to pin the rest.`,
    );
  else if (toPin.length > room)
    reasons.push(
      `Pin is off: pinning ${toPin.length} would pass the pin limit (${pins?.pinned} of ${pins?.limit} pinned, ${room} free). Select fewer, or unpin some first.`,
    );
  const unpin = $<HTMLButtonElement>('unpin-selected');
  unpin.textContent = toUnpin > 0 ? `Unpin ${toUnpin}` : 'Unpin selected';
  unpin.disabled = toUnpin === 0;
  if (toUnpin === 0) reasons.push('Unpin is off: none of the selected memories is pinned.');
  $('forget-selected').textContent = `Forget ${chosen.length}`;
  $('selection-why').textContent = reasons.join(' ');
  $('selection-why').hidden = reasons.length === 0;
}

export function clearSelection(): void {
  state.selected.clear();
  for (const box of boxes()) box.checked = false;
  selectionBar();
}

/** Ticks (or unticks) every memory the list shows: a page at a time, never one that is not on screen. */
export function selectAllShown(shown: ReadonlyMap<string, PageMemory>): void {
  const on = $<HTMLInputElement>('select-all').checked;
  for (const box of boxes()) {
    const m = shown.get(box.dataset.id ?? '');
    if (!m) continue;
    box.checked = on;
    if (on) state.selected.set(m.id, m);
    else state.selected.delete(m.id);
  }
  selectionBar();
}

/** A new list keeps the ticks of what it still shows, fresh. */
export function keepShown(shown: ReadonlyMap<string, PageMemory>, append: boolean): void {
  if (append) return;
  state.selected = new Map(
    [...state.selected.keys()].flatMap((id) => {
      const m = shown.get(id);
      return m ? [[id, m] as const] : [];
    }),
  );
}
