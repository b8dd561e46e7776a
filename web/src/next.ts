import type { EvictNextJson, ExpiringNextJson, KindOutlookJson, NextJson } from '../../lambda/page/contract.js';
import { pinById } from './actions.js';
import { api } from './api.js';
import { contentBlock, pinControl } from './card.js';
import { $, button, el } from './dom.js';
import { page, state } from './state.js';
import { timeEl } from './time.js';

/**
 * Next to go: per kind, what the ceiling evicts next and what expires soonest, in the server's
 * order and with its reason for each; Pin only where the server allows it (never a replaced memory).
 */

/** Whether Pin works here, in text above the lists: at the limit every Pin is off, and this says why and what to do. */
function nextPins(): void {
  const pins = state.overview?.pins;
  const box = $('next-pins');
  if (!pins) {
    box.replaceChildren();
    return;
  }
  if (pins.room > 0) {
    box.className = 'notice';
    box.replaceChildren(el('p', `${pins.pinned} of ${pins.limit} pinned: Pin keeps a memory here from going.`));
    return;
  }
  box.className = 'notice error';
  const show = button('Show pinned memories', showPinned, 'small');
  box.replaceChildren(
    el(
      'p',
      `Pin is off: ${pins.pinned} of ${pins.limit} memories are pinned, the pin limit. Unpin one to keep one of these instead.`,
    ),
    show,
  );
}

/** The memories list, pinned ones only: where a person unpins. */
function showPinned(): Promise<void> {
  $<HTMLSelectElement>('pinned').value = 'true';
  return page.show('memories');
}

function nextItem(m: EvictNextJson | ExpiringNextJson, when: (string | Node)[]): HTMLLIElement {
  const item = el('li');
  item.dataset.id = m.id;
  item.append(...contentBlock(m));
  const meta = el('span', undefined, 'why');
  meta.append(...when, m.reason ? ` — ${m.reason}` : '');
  item.append(meta);
  const row = el('div', undefined, 'row actions');
  const [pin, refused] = pinControl({ ...m, pinned: false }, () => pinById(m.id), 'next-pins');
  row.append(pin!);
  item.append(row);
  if (refused) item.append(refused);
  return item;
}

function kindBlock(k: KindOutlookJson): HTMLElement {
  const block = el('section', undefined, 'card');
  block.dataset.kind = k.kind;
  block.setAttribute('aria-label', `${k.kind}: ${k.count} of ${k.ceiling}`);
  block.append(el('h3', `${k.kind}: ${k.count} of ${k.ceiling}`));
  if (k.count === 0) {
    block.append(el('p', 'Nothing to lose yet.', 'hint'));
    return block;
  }
  block.append(el('h4', k.full ? 'Evicted by the next new memory, in order' : 'Would go first at the ceiling'));
  const evict = el('ol', undefined, 'evict');
  for (const m of k.evictNext)
    evict.append(nextItem(m, ['last useful ', timeEl(m.lastUsefulAt), `, recalled ${m.recallCount}×`]));
  block.append(k.evictNext.length ? evict : el('p', 'Nothing unpinned: every memory of this kind is pinned.', 'hint'));
  if (k.expiringNext.length) {
    const expiring = el('ol', undefined, 'expiring');
    for (const m of k.expiringNext) expiring.append(nextItem(m, ['expires ', timeEl(m.expiresAt)]));
    block.append(el('h4', 'Expiring soonest'), expiring);
  }
  return block;
}

export async function loadNext(): Promise<void> {
  const next = await api<NextJson>('api/next?limit=5');
  nextPins();
  if (next.kinds.every((k) => k.count === 0)) {
    $('next').replaceChildren(el('p', 'Nothing remembered yet, so nothing to lose.', 'empty'));
    return;
  }
  $('next').replaceChildren(...next.kinds.map(kindBlock));
}
