import type { MemoriesJson, PageMemory, SearchJson, WritersJson } from '../../lambda/page/contract.js';
import { forgetOne, setPinned } from './actions.js';
import { api, guarded } from './api.js';
import { type CardActions, memoryCard } from './card.js';
import { compare } from './compare.js';
import { $, button, el, userText } from './dom.js';
import { clearFilterControls, filtered, filterParams, listParams, showFilterSummary } from './filters.js';
import { keepShown, selectionBar } from './selection.js';
import { kindCount, page, state, totalOf } from './state.js';

/** The memories list: a page of the listing, or the best of a search; both under the filters the controls show. */

/** How many results a search shows at most. */
const SEARCH_LIMIT = 20;

/** Each listing or search asked, numbered: only the answer to the latest is drawn (typing asks often). */
let lists = 0;
/** The memories on screen, by id: what select-all ticks. */
export const shown = new Map<string, PageMemory>();

const actions: CardActions = {
  pin: (m, pinned) => setPinned(m, pinned),
  forget: (m) => forgetOne(m),
  compare: (m, id) => guarded(() => compare(m, id, actions)),
  selected: selectionBar,
};

function showEmpty(message: string, action?: HTMLElement): void {
  const box = $('empty');
  box.replaceChildren(el('p', message));
  if (action) box.append(action);
  box.hidden = false;
}

/** Shows or hides the forget buttons: nothing to forget, no button. */
function dangerButtons(): void {
  const total = totalOf(state.overview);
  const ofKind = state.kind ? (kindCount(state.kind)?.count ?? 0) : 0;
  $('forget-kind').hidden = ofKind === 0;
  $('forget-kind').textContent = `Forget every ${state.kind} memory`;
  $('forget-all').hidden = total === 0;
  $('danger').hidden = total === 0;
}

function pinNote(): void {
  const pins = state.overview?.pins;
  if (!pins) return;
  $('pin-note').textContent =
    pins.room === 0
      ? `${pins.pinned} of ${pins.limit} pinned: the pin limit. Unpin one to pin another.`
      : `${pins.pinned} of ${pins.limit} pinned. A pinned memory is never evicted and never expires.`;
}

function render(memories: readonly PageMemory[], append: boolean): void {
  const list = $('memories');
  if (!append) {
    list.replaceChildren();
    shown.clear();
  }
  // How many times the list was drawn: lets a reader (or a test) tell a new answer from the last one.
  list.dataset.renders = String(Number(list.dataset.renders ?? 0) + 1);
  $('empty').hidden = true;
  for (const m of memories) shown.set(m.id, m);
  keepShown(shown, append);
  for (const m of memories) list.append(memoryCard(m, { actions, select: true }));
  pinNote();
  dangerButtons();
  selectionBar();
}

export async function loadWriters(): Promise<void> {
  const { writers } = await api<WritersJson>('api/writers');
  for (const [field, label] of [
    ['agent', 'Any agent'],
    ['client', 'Any client'],
  ] as const) {
    const select = $<HTMLSelectElement>(field);
    const current = select.value;
    const values = [...new Set(writers.map((w) => w[field]))].sort();
    const any = el('option', label);
    any.value = '';
    select.replaceChildren(
      any,
      ...values.map((v) => {
        const option = el('option', v);
        option.value = v;
        return option;
      }),
    );
    select.value = values.includes(current) ? current : '';
  }
  showFilterSummary();
}

export async function loadMemories(append = false): Promise<void> {
  const params = listParams();
  if (append && state.cursor) params.set('cursor', state.cursor);
  const asked = ++lists;
  const answer = await api<MemoriesJson>(`api/memories?${params}`);
  if (asked !== lists) return;
  state.query = '';
  state.cursor = answer.nextCursor;
  if (!append) state.total = answer.total ?? 0;
  $('more-memories').hidden = !state.cursor;
  $('compare').hidden = true;
  render(answer.memories, append);
  const count = $('memories').children.length;
  const what = state.kind ? `${state.kind} memories` : 'memories';
  $('list-caption').textContent =
    state.total === 0 ? '' : `Showing ${count} of ${state.total} ${what}${filtered(params) ? ' that match the filters' : ''}`;
  if (state.total > 0) return;
  if (filtered(params)) showEmpty('No memory matches these filters.', button('Clear the filters', clearFilters));
  else if (totalOf(state.overview) === 0)
    showEmpty(
      'Nothing remembered yet. Connect an agent, and what it remembers shows here.',
      button('How to connect', () => page.show('overview')),
    );
  else showEmpty(`No ${state.kind} memory yet.`);
}

export function clearFilters(): Promise<void> {
  clearFilterControls();
  return guarded(() => loadMemories());
}

/** The best memories for `query`, of the kind chosen, under every filter the controls show. */
export async function search(query: string): Promise<void> {
  const params = filterParams();
  const withFilters = filtered(params);
  params.set('q', query);
  params.set('limit', String(SEARCH_LIMIT));
  if (state.kind) params.set('kinds', state.kind);
  const asked = ++lists;
  const found = await api<SearchJson>(`api/search?${params}`);
  if (asked !== lists) return;
  state.query = query;
  state.cursor = null;
  $('more-memories').hidden = true;
  $('compare').hidden = true;
  render(found.memories, false);
  const caption = $('list-caption');
  caption.replaceChildren();
  if (found.memories.length === 0) {
    const box = el('p', 'Nothing found for “');
    box.append(
      userText('bdi', query),
      withFilters ? '” among the memories that match the filters.' : '”: none of your memories relates to it.',
    );
    $('empty').replaceChildren(box);
    if (withFilters) $('empty').append(button('Clear the filters', clearFilters));
    $('empty').hidden = false;
    return;
  }
  const what = state.kind ? `${state.kind} memories` : 'memories';
  if (withFilters) {
    caption.append(`Best ${found.memories.length} ${what} that match the filters for “`, userText('bdi', query), '”, best first');
    return;
  }
  // "Best N of M": N shown, of the M memories searched (the kind chosen, or all).
  const searched = state.kind ? (kindCount(state.kind)?.count ?? 0) : totalOf(state.overview);
  caption.append(`Best ${found.memories.length} of ${searched} ${what} for “`, userText('bdi', query), '”, best first');
  if (found.memories.length < Math.min(SEARCH_LIMIT, searched)) caption.append('; the others relate too little');
}

/** What the list shows again: the search typed, or the listing. */
export const listAgain = (): Promise<void> => (state.query ? search(state.query) : loadMemories());

/** Search as you type: a pause of `SEARCH_PAUSE_MS` after the last key asks; an empty box lists again. */
const SEARCH_PAUSE_MS = 300;
let typing: ReturnType<typeof setTimeout> | undefined;

export function searchAsYouType(): void {
  clearTimeout(typing);
  typing = setTimeout(() => {
    const query = $<HTMLInputElement>('q').value.trim();
    if (query === state.query) return;
    void guarded(() => (query ? search(query) : loadMemories()));
  }, SEARCH_PAUSE_MS);
}

/** The search box as it stands, now: a pending pause is dropped. */
export function searchNow(): Promise<void> {
  clearTimeout(typing);
  const query = $<HTMLInputElement>('q').value.trim();
  return guarded(() => (query ? search(query) : loadMemories()));
}

/** A filter changed: the search typed, or the listing, under the new filters. */
export function filtersChanged(): Promise<void> {
  showFilterSummary();
  return searchNow();
}
