import type { OverviewJson } from '../../lambda/page/contract.js';
import { api } from './api.js';
import { $, el } from './dom.js';
import { state, totalOf } from './state.js';
import { duration } from './time.js';

/** The first view: each kind's count against its ceiling, the pins against the limit, the providers. */

export function meter(value: number, max: number, label: string): HTMLMeterElement {
  const gauge = el('meter');
  gauge.min = 0;
  gauge.max = Math.max(max, 1);
  gauge.value = value;
  gauge.high = gauge.max * 0.9;
  gauge.setAttribute('aria-label', label);
  return gauge;
}

function facts(pairs: readonly [string, string | number][]): HTMLDListElement {
  const list = el('dl', undefined, 'facts');
  for (const [term, value] of pairs) list.append(el('dt', term), el('dd', value));
  return list;
}

function kindCard(k: OverviewJson['kinds'][number]): HTMLElement {
  const card = el('article', undefined, 'card');
  card.dataset.kind = k.kind;
  const line = el('p');
  line.append(el('span', k.count, 'count'), ` of ${k.ceiling}`);
  card.append(el('h3', k.kind), meter(k.count, k.ceiling, `${k.kind}: ${k.count} of ${k.ceiling}`), line);
  card.append(
    facts([
      ['expires after', k.ttlSeconds === null ? 'never' : duration(k.ttlSeconds)],
      ['pinned', k.pinned],
    ]),
  );
  return card;
}

export async function loadOverview(): Promise<void> {
  const overview = await api<OverviewJson>('api/overview');
  state.overview = overview;
  const total = totalOf(overview);
  const { pinned, limit } = overview.pins;
  $('totals').textContent =
    total === 0
      ? 'Nothing remembered yet: connect an agent below, and what it remembers shows here.'
      : `${total} memories kept, ${pinned} of ${limit} pinned.`;
  $('kinds').replaceChildren(...overview.kinds.map(kindCard));
  const judge = overview.judge;
  const health = judge.lastCallOk === null ? 'not called yet' : judge.lastCallOk ? 'last call worked' : 'last call failed';
  const pins = el('dd');
  pins.append(meter(pinned, limit, `pinned ${pinned} of ${limit}`), ` ${pinned} of ${limit}`);
  const judgeLine = el('dd', `${judge.name}: ${health}`, judge.lastCallOk === false ? 'bad' : '');
  judgeLine.id = 'judge';
  $('engine').replaceChildren(
    el('dt', 'pinned'),
    pins,
    el('dt', 'judge'),
    judgeLine,
    el('dt', 'embedder'),
    el('dd', overview.embedder),
  );
  // An empty memory opens on how to connect an agent.
  const view = $('view-overview');
  if (total === 0) view.insertBefore($('connect'), $('kinds'));
  else view.insertBefore($('connect'), $('engine').nextSibling);
  $('connect-intro').textContent =
    total === 0
      ? 'Nothing is remembered yet. Give your MCP client this endpoint and a key; its memories then show here. Pick the client:'
      : 'Connect another agent: give its MCP client this endpoint and a key. Pick the client:';
  fillKindSelect(overview);
}

function fillKindSelect(overview: OverviewJson): void {
  const select = $<HTMLSelectElement>('kind');
  const all = el('option', 'All kinds');
  all.value = '';
  select.replaceChildren(all, ...overview.kinds.map((k) => el('option', k.kind)));
  select.value = state.kind;
}
