import type { FoundMemory, PageMemory, PinVerdictJson } from '../../lambda/page/contract.js';
import { button, checkBox, el, sizeOfText, userText } from './dom.js';
import { state } from './state.js';
import { timeEl } from './time.js';

/** A memory as a card: its text, who wrote it and when, what the policy says of it, and what can be done. */

/** Memories longer than this show collapsed, with a way to expand. */
const COLLAPSE = { chars: 480, lines: 6 };

/** What a card's buttons do: set by the sections that draw cards (memories.ts, compare.ts). */
export interface CardActions {
  readonly pin: (m: PageMemory, pinned: boolean) => unknown;
  readonly forget: (m: PageMemory) => unknown;
  readonly compare: (m: PageMemory, otherId: string) => unknown;
  /** Called when a tick box changes the selection. */
  readonly selected: () => void;
}

/** How close a search hit is, in words: from its distance in meaning (0 is the same). */
function relevance(m: PageMemory): string {
  if (!('distance' in m)) return '';
  const { distance } = m as FoundMemory;
  if (distance <= 0.35) return 'very close in meaning';
  if (distance <= 0.6) return 'close in meaning';
  if (distance <= 0.85) return 'related';
  return 'a weak match';
}

export function contentBlock(m: { readonly id: string; readonly content: string }): HTMLElement[] {
  const content = userText('p', m.content, 'content');
  content.id = `content-${m.id}-${Math.random().toString(36).slice(2, 8)}`;
  const long = m.content.length > COLLAPSE.chars || m.content.split('\n').length > COLLAPSE.lines;
  if (!long) return [content];
  content.classList.add('collapsed');
  const more = `Show all (${sizeOfText(m.content)})`;
  const toggle = button(
    more,
    () => {
      const open = content.classList.toggle('collapsed') === false;
      toggle.textContent = open ? 'Show less' : more;
      toggle.setAttribute('aria-expanded', String(open));
    },
    'link expand',
  );
  toggle.setAttribute('aria-expanded', 'false');
  toggle.setAttribute('aria-controls', content.id);
  return [content, toggle];
}

const PIN_OFF = { pin_limit: 'Pin (limit reached)', replaced: 'Pin (replaced)' } as const;
let notes = 0;

/**
 * A Pin or Unpin button as the server's verdict has it. Refused, it is off and says why in its own
 * text (a phone shows no tooltip): at the limit it points to the shared note `limitNote`; for a
 * replaced memory a note of its own follows it, in the server's words.
 */
export function pinControl(
  m: { readonly content: string; readonly pinned: boolean; readonly pin: PinVerdictJson },
  onClick: () => unknown,
  limitNote: string,
): HTMLElement[] {
  const off = m.pinned ? null : m.pin.refusal;
  const label = m.pinned ? 'Unpin' : off ? PIN_OFF[off] : 'Pin';
  const b = button(label, onClick, 'small');
  b.setAttribute('aria-label', `${label}: ${m.content.slice(0, 60)}`);
  if (!off) return [b];
  b.disabled = true;
  if (off === 'pin_limit') {
    b.setAttribute('aria-describedby', limitNote);
    return [b];
  }
  const note = el('p', m.pin.reason, 'hint pin-refused');
  note.id = `pin-refused-${++notes}`;
  b.setAttribute('aria-describedby', note.id);
  return [b, note];
}

/** The tick that adds a memory to the selection. */
function selectBox(m: PageMemory, actions: CardActions): HTMLLabelElement {
  const { label, box } = checkBox('Select', 'check select');
  box.checked = state.selected.has(m.id);
  box.dataset.id = m.id;
  box.setAttribute('aria-label', `Select: ${m.content.slice(0, 60)}`);
  box.addEventListener('change', () => {
    if (box.checked) state.selected.set(m.id, m);
    else state.selected.delete(m.id);
    actions.selected();
  });
  return label;
}

function provenance(m: PageMemory): HTMLElement {
  const who = el('p', undefined, 'meta');
  who.append(el('span', m.kind, 'tag'));
  if (m.pinned) who.append(' ', el('span', 'pinned', 'tag pinned'));
  if (m.supersededBy) who.append(' ', el('span', 'replaced by a newer memory', 'tag conflict'));
  else if (m.supersedes.length) who.append(' ', el('span', 'replaces an earlier memory', 'tag'));
  else if (m.conflicts.length) who.append(' ', el('span', 'conflict', 'tag conflict'));
  who.append(' by ', userText('bdi', m.agent), ' · ', userText('bdi', m.client));
  if (m.origin) who.append(' · from ', userText('bdi', m.origin));
  return who;
}

function times(m: PageMemory, invisible: number): HTMLElement {
  const when = el('p', undefined, 'meta');
  when.append('created ', timeEl(m.createdAt), ' · last useful ', timeEl(m.lastUsefulAt));
  when.append(` · recalled ${m.recallCount}×`);
  if (m.restatements > 1) when.append(` · stated ${m.restatements}×`);
  if (m.outlook.expiresAt) when.append(' · expires ', timeEl(m.outlook.expiresAt));
  if (invisible > 0) when.append(el('span', ` · holds ${invisible} invisible character${invisible > 1 ? 's' : ''}`, 'bad'));
  return when;
}

function restated(m: PageMemory): HTMLElement | null {
  if (m.restatedBy.length === 0) return null;
  const details = el('details', undefined, 'restated');
  details.append(el('summary', `Restated by ${m.restatedBy.length}`));
  const list = el('ul');
  for (const r of m.restatedBy) {
    const line = el('li');
    line.append(userText('bdi', r.agent), ' · ', userText('bdi', r.client));
    if (r.origin) line.append(' · ', userText('bdi', r.origin));
    line.append(' · ', timeEl(r.at));
    list.append(line);
  }
  details.append(list);
  return details;
}

export interface CardOptions {
  /** Buttons under the card; none when absent. */
  readonly actions?: CardActions;
  readonly select?: boolean;
}

export function memoryCard(m: PageMemory, { actions, select = false }: CardOptions = {}): HTMLLIElement {
  const item = el('li', undefined, 'card memory');
  item.dataset.id = m.id;
  item.append(...contentBlock(m));
  const invisible = Number(item.querySelector<HTMLElement>('.content')?.dataset.invisible ?? 0);
  item.append(provenance(m), times(m, invisible));
  const match = relevance(m);
  if (match) item.append(el('p', `Match: ${match}`, 'meta relevance'));
  const more = restated(m);
  if (more) item.append(more);
  if (!actions) return item;
  const row = el('div', undefined, 'row actions');
  if (select) row.append(selectBox(m, actions));
  for (const id of m.conflicts) {
    // The card's tag says which side of a supersession it is ("replaced by a newer memory").
    const b = button('Compare', () => actions.compare(m, id), 'small');
    b.setAttribute('aria-label', `Compare with the memory it contradicts: ${m.content.slice(0, 60)}`);
    row.append(b);
  }
  const [pin, refused] = pinControl({ ...m, pin: m.outlook.pin }, () => actions.pin(m, !m.pinned), 'pin-note');
  const forget = button('Forget', () => actions.forget(m), 'warn small');
  forget.setAttribute('aria-label', `Forget: ${m.content.slice(0, 60)}`);
  row.append(pin!, forget);
  item.append(row);
  if (refused) item.append(refused);
  return item;
}
