import { $ } from './dom.js';
import { state } from './state.js';

/**
 * The list's filters as the controls show them: the listing and the search both send every one
 * (the server applies them to either), and the box's summary names those set, so a filter folded
 * away on a phone is still in sight.
 */

const FILTERS = ['agent', 'client', 'origin', 'pinned', 'conflicting'] as const;
const LABELS: Record<(typeof FILTERS)[number], string> = {
  agent: 'agent',
  client: 'client',
  origin: 'origin',
  pinned: 'pinned',
  conflicting: 'conflicting',
};

/** The filters set, as the API names them. */
export function filterParams(): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of ['agent', 'client', 'pinned'] as const) {
    const value = $<HTMLSelectElement>(name).value;
    if (value) params.set(name, value);
  }
  const origin = $<HTMLInputElement>('origin').value.trim();
  if (origin) params.set('origin', origin);
  if ($<HTMLInputElement>('conflicting').checked) params.set('conflicting', 'true');
  return params;
}

/** The listing's query: order, kind and every filter. */
export function listParams(): URLSearchParams {
  const params = filterParams();
  params.set('order', $<HTMLSelectElement>('order').value);
  if (state.kind) params.set('kind', state.kind);
  return params;
}

export const filtered = (params: URLSearchParams): boolean => FILTERS.some((f) => params.has(f));

/** The box's summary: "Filters" and those set, e.g. "Filters: agent, pinned". */
export function showFilterSummary(): void {
  const params = filterParams();
  const set = FILTERS.filter((f) => params.has(f)).map((f) => LABELS[f]);
  $('filter-summary').textContent =
    set.length === 0 ? 'Kind, order and filters' : `Kind, order and filters: ${set.join(', ')} set`;
}

export function clearFilterControls(): void {
  for (const name of ['agent', 'client', 'pinned', 'origin']) $<HTMLInputElement>(name).value = '';
  $<HTMLInputElement>('conflicting').checked = false;
  showFilterSummary();
}

/** Open on a wide screen; folded on a phone, so the first memory shows on the first screen. */
export function foldFiltersOnPhones(): void {
  $<HTMLDetailsElement>('filter-box').open = matchMedia('(min-width: 700px)').matches;
}
