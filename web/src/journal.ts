import type { DailyJson, HourlyJson, JournalJson } from '../../lambda/page/contract.js';
import { api, guarded, query } from './api.js';
import { chartWidth, legendItem, moveFocus, niceScale, RULE_WORDS, RULES, type Rule } from './chart.js';
import { $, el, svg } from './dom.js';
import { type Range, state } from './state.js';
import { absolute, duration, shortDay, timeEl } from './time.js';

/** The forgetting journal: a chart of lines per period and rule, and the lines, grouped where they read the same. */

type Point = DailyJson['days'][number] | HourlyJson['hours'][number];

interface Period {
  readonly key: string;
  readonly counts: Record<Rule, number>;
  readonly total: number;
  readonly long: string;
  readonly short: string;
}

function periodsOf(series: readonly Point[]): Period[] {
  return series.map((p) => {
    const counts = Object.fromEntries(RULES.map((r) => [r, p[r] ?? 0])) as Record<Rule, number>;
    const total = RULES.reduce((sum, r) => sum + counts[r], 0);
    const key = 'day' in p ? p.day : p.hour;
    if ('day' in p) return { key, counts, total, long: shortDay(p.day, true), short: shortDay(p.day) };
    const date = new Date(p.hour);
    const time = date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
    return {
      key,
      counts,
      total,
      long: `${date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}, ${time}`,
      short: time,
    };
  });
}

const periodText = (p: Period) =>
  p.total === 0
    ? `${p.long}: nothing forgotten`
    : `${p.long}: ${p.total} forgotten — ${RULES.map((r) => `${p.counts[r]} by ${r}`).join(', ')}`;

/** Draws the journal's chart again at the window's new width. */
export function redrawJournal(): void {
  if (state.series) drawChart(periodsOf(state.series), state.range);
}

function periodGroup(p: Period, x: number, step: number, y: (v: number) => number, top: number, plotH: number): SVGGElement {
  const g = svg('g', { class: 'period', role: 'img', tabindex: '-1', 'aria-label': periodText(p) });
  g.dataset.key = p.key;
  g.append(svg('rect', { x, y: top, width: step, height: plotH, class: 'hit' }));
  let base = 0;
  for (const rule of RULES) {
    const n = p.counts[rule];
    if (n === 0) continue;
    const bar = svg('rect', {
      x: x + step * 0.15,
      y: y(base + n),
      width: Math.max(step * 0.7, 1),
      height: y(base) - y(base + n),
      class: `bar ${rule}`,
    });
    bar.dataset.rule = rule;
    bar.dataset.count = String(n);
    bar.dataset.day = p.key;
    base += n;
    g.append(bar);
  }
  const title = svg('title');
  title.textContent = periodText(p);
  g.append(title);
  const read = () => {
    $('chart-readout').textContent = periodText(p);
  };
  g.addEventListener('focus', read);
  g.addEventListener('mouseenter', read);
  return g;
}

function drawChart(periods: readonly Period[], range: Range): void {
  const W = chartWidth($('chart'));
  const H = W < 500 ? 200 : 220;
  const m = { left: 34, right: 8, top: 22, bottom: 26 };
  const plotW = W - m.left - m.right;
  const plotH = H - m.top - m.bottom;
  const step = plotW / Math.max(periods.length, 1);
  const scale = niceScale(Math.max(0, ...periods.map((p) => p.total)));
  const y = (v: number) => m.top + plotH - (v / scale.top) * plotH;
  const totals = Object.fromEntries(RULES.map((r) => [r, periods.reduce((sum, p) => sum + p.counts[r], 0)])) as Record<
    Rule,
    number
  >;
  const span =
    range === 'days' ? `per day over the last ${periods.length} days` : `per hour over the last ${periods.length} hours`;
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'group' });
  chart.setAttribute('aria-label', `Forgotten ${span}: ${RULES.map((r) => `${totals[r]} by ${r}`).join(', ')}`);
  for (const tick of scale.ticks) {
    chart.append(svg('line', { x1: m.left, x2: W - m.right, y1: y(tick), y2: y(tick), class: 'grid-line' }));
    const label = svg('text', { x: m.left - 6, y: y(tick) + 3, 'text-anchor': 'end', 'aria-hidden': 'true' });
    label.textContent = String(tick);
    chart.append(label);
  }
  chart.append(svg('line', { x1: m.left, x2: m.left, y1: m.top, y2: m.top + plotH, class: 'axis' }));
  const unit = svg('text', { x: m.left - 28, y: 12, 'aria-hidden': 'true' });
  unit.textContent = range === 'days' ? 'lines per day' : 'lines per hour';
  chart.append(unit);
  chart.append(svg('line', { x1: m.left, x2: W - m.right, y1: m.top + plotH, y2: m.top + plotH, class: 'axis' }));
  // As many period labels as fit, about 64 px apart, always the latest one.
  const every = Math.max(1, Math.ceil(periods.length / Math.max(2, Math.floor(plotW / 64))));
  const groups = periods.map((p, i) => {
    const x = m.left + i * step;
    if ((periods.length - 1 - i) % every === 0) {
      // The latest period's label ends at the chart's edge rather than running past it.
      const last = i === periods.length - 1;
      const label = svg('text', {
        x: last ? W - m.right : x + step / 2,
        y: H - 8,
        'text-anchor': last ? 'end' : 'middle',
        'aria-hidden': 'true',
      });
      label.textContent = p.short;
      chart.append(label);
    }
    return periodGroup(p, x, step, y, m.top, plotH);
  });
  chart.append(...groups);
  const start = [...periods.keys()].reverse().find((i) => (periods[i]?.total ?? 0) > 0) ?? periods.length - 1;
  groups[start]?.setAttribute('tabindex', '0');
  chart.addEventListener('keydown', (event) => moveFocus(event, groups));
  $('chart').replaceChildren(chart);
  const first = periods[start];
  $('chart-readout').textContent = first ? periodText(first) : '';
  $('legend').replaceChildren(
    ...RULES.map((rule) => {
      const item = legendItem(rule, `${rule}: ${totals[rule]} — ${RULE_WORDS[rule]}`);
      item.dataset.rule = rule;
      return item;
    }),
  );
}

type Line = JournalJson['lines'][number];

/** What a journal row shows of a line: lines that show the same are one row. */
const shownAs = (l: Line) =>
  [Math.floor(Date.parse(l.at) / 60_000), l.kind, l.rule, duration(l.ageSeconds), l.recallCount].join('|');

/** Consecutive journal lines that read the same (same minute, kind, rule, age and recalls), as one row with how many. */
function grouped(lines: readonly Line[]): { line: Line; n: number; earliest: string }[] {
  const rows: { line: Line; n: number; earliest: string }[] = [];
  for (const line of lines) {
    const last = rows.at(-1);
    if (last && shownAs(last.line) === shownAs(line)) {
      last.n += 1;
      last.earliest = line.at;
    } else rows.push({ line, n: 1, earliest: line.at });
  }
  return rows;
}

function cell(label: string, content: string | Node, className?: string): HTMLTableCellElement {
  const td = el('td', undefined, className);
  td.dataset.label = label;
  td.append(content);
  return td;
}

function journalRow({ line, n, earliest }: { line: Line; n: number; earliest: string }): HTMLTableRowElement {
  const row = el('tr');
  row.dataset.rule = line.rule;
  row.dataset.lines = String(n);
  const when = timeEl(line.at);
  if (earliest !== line.at) when.title = `${absolute(earliest)} to ${absolute(line.at)}`;
  row.append(
    cell('When', when),
    cell('Kind', line.kind),
    cell('Rule', line.rule),
    cell('Age', duration(line.ageSeconds)),
    cell('Recalls', String(line.recallCount)),
    cell('Lines', n > 1 ? `×${n}` : '1'),
  );
  return row;
}

export async function loadJournal(pageIndex = 0): Promise<void> {
  const series =
    state.range === 'days'
      ? (await api<DailyJson>('api/journal/daily?days=30')).days
      : (await api<HourlyJson>('api/journal/hourly?hours=24')).hours;
  state.series = series;
  drawChart(periodsOf(series), state.range);
  const cursor = state.journal[pageIndex] ?? null;
  const answer = await api<JournalJson>(`api/journal${cursor ? `?${query({ cursor })}` : ''}`);
  state.journal = state.journal.slice(0, pageIndex + 1);
  if (answer.nextCursor) state.journal.push(answer.nextCursor);
  state.journalPage = pageIndex;
  const rows = grouped(answer.lines).map(journalRow);
  if (rows.length === 0) {
    const empty = el('td', 'Nothing forgotten automatically yet.', 'wide');
    empty.colSpan = 6;
    const row = el('tr');
    row.append(empty);
    rows.push(row);
  }
  $<HTMLTableElement>('journal').tBodies[0]?.replaceChildren(...rows);
  $<HTMLButtonElement>('journal-next').disabled = !answer.nextCursor;
  $<HTMLButtonElement>('journal-first').disabled = pageIndex === 0;
}

export function setRange(range: Range): Promise<void> {
  state.range = range;
  for (const b of document.querySelectorAll<HTMLElement>('[data-range]'))
    b.setAttribute('aria-pressed', String(b.dataset.range === range));
  return guarded(() => loadJournal(state.journalPage));
}
