import type { JournalJson, MemoriesJson, OverviewJson, PageMemory } from '../../lambda/page/contract.js';
import { api } from './api.js';
import { chartWidth, legendItem, niceScale, RULE_WORDS, RULES, type Rule } from './chart.js';
import { $, el, svg } from './dom.js';
import { state } from './state.js';
import { shortDay } from './time.js';

/** Memory over time: per kind, how many it held each day against its ceiling, and what went by which rule. */

const PICTURE_DAYS = 30;
const DAY_MS = 86_400_000;
/** Pages of 100 read at most for the picture, per source: past that it says it is partial. */
const PICTURE_PAGES = 20;

interface KindDay {
  readonly day: string;
  readonly held: number;
  readonly forgotten: Record<Rule, number>;
}
interface KindPicture {
  readonly kind: string;
  readonly ceiling: number;
  readonly count: number;
  readonly series: readonly KindDay[];
}
interface Picture {
  readonly kinds: readonly KindPicture[];
  readonly partial: boolean;
}

let lastPicture: Picture | null = null;

export function forgetPicture(): void {
  lastPicture = null;
}

type Line = JournalJson['lines'][number];

/** Pages of `path` newest first while `keep` holds for the last item read; whether it stopped short. */
async function newestWhile<A extends { readonly nextCursor: string | null }, T>(
  path: string,
  items: (answer: A) => readonly T[],
  keep: (item: T) => boolean,
  order?: string,
): Promise<{ items: T[]; partial: boolean }> {
  const all: T[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < PICTURE_PAGES; n += 1) {
    const params = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}), ...(order ? { order } : {}) });
    const answer: A = await api<A>(`${path}?${params}`);
    const got = items(answer);
    all.push(...got);
    cursor = answer.nextCursor;
    const last = got.at(-1);
    if (!cursor || last === undefined || !keep(last)) return { items: all, partial: false };
  }
  return { items: all, partial: true };
}

/**
 * What each kind held at the end of each day: what it holds now, less what was made since, plus what
 * was forgotten since having been made by then (a journal line's age tells when its memory was made).
 */
function pictureOf(overview: OverviewJson, memories: readonly PageMemory[], lines: readonly Line[]): KindPicture[] {
  const now = Date.now();
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const days = Array.from({ length: PICTURE_DAYS }, (_, i) => today - (PICTURE_DAYS - 1 - i) * DAY_MS);
  return overview.kinds.map((k) => {
    const made = memories.filter((m) => m.kind === k.kind).map((m) => Date.parse(m.createdAt));
    const gone = lines
      .filter((l) => l.kind === k.kind)
      .map((l) => ({ at: Date.parse(l.at), made: Date.parse(l.at) - l.ageSeconds * 1000, rule: l.rule }));
    const series = days.map((start) => {
      const end = Math.min(start + DAY_MS, now);
      const held = Math.max(
        0,
        k.count - made.filter((t) => t > end).length + gone.filter((g) => g.made <= end && g.at > end).length,
      );
      const forgotten = Object.fromEntries(RULES.map((r) => [r, 0])) as Record<Rule, number>;
      for (const g of gone) if (g.at >= start && g.at < start + DAY_MS) forgotten[g.rule] += 1;
      return { day: new Date(start).toISOString().slice(0, 10), held, forgotten };
    });
    return { kind: k.kind, ceiling: k.ceiling, count: k.count, series };
  });
}

const goneOn = (d: KindDay) => RULES.reduce((n, r) => n + d.forgotten[r], 0);

function pictureText(k: KindPicture): string {
  const first = k.series[0];
  const totals = RULES.map((r) => [r, k.series.reduce((n, d) => n + d.forgotten[r], 0)] as const).filter(([, n]) => n > 0);
  const forgotten = totals.reduce((n, [, c]) => n + c, 0);
  const went =
    forgotten === 0 ? 'nothing forgotten' : `${forgotten} forgotten: ${totals.map(([r, n]) => `${n} by ${r}`).join(', ')}`;
  return `${k.kind}: ${k.count} of ${k.ceiling} now, ${first?.held ?? 0} at the end of ${first ? shortDay(first.day) : ''}; ${went}`;
}

const text = (attributes: Record<string, string | number>, words: string) => {
  const t = svg('text', attributes);
  t.textContent = words;
  return t;
};

/**
 * One kind's picture: the line of what it held, its ceiling dashed, and below, what went each day by
 * rule. The scale fits what the kind held, with round ticks between 0 and its top; a ceiling far
 * above (a kind of 3 under a ceiling of 500) is named at the top rather than flattening the line.
 */
function kindPicture(k: KindPicture, W: number, mostGone: number): SVGSVGElement {
  const H = 186;
  const gap = 22;
  const m = { left: 34, right: 10, top: 16, band: 40, bottom: 22 };
  const plotH = H - m.top - m.band - m.bottom - gap;
  const step = (W - m.left - m.right) / k.series.length;
  const most = Math.max(1, ...k.series.map((d) => d.held));
  const ceilingShown = k.ceiling <= most * 2;
  const scale = niceScale(ceilingShown ? Math.max(k.ceiling, most) : most);
  const y = (v: number) => m.top + plotH - (v / scale.top) * plotH;
  const x = (i: number) => m.left + i * step + step / 2;
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart picture', role: 'img', 'aria-label': pictureText(k) });
  for (const tick of scale.ticks) {
    chart.append(svg('line', { x1: m.left, x2: W - m.right, y1: y(tick), y2: y(tick), class: 'grid-line' }));
    chart.append(text({ x: m.left - 6, y: y(tick) + 4, 'text-anchor': 'end', class: 'tick' }, String(tick)));
  }
  if (ceilingShown) {
    chart.append(svg('line', { x1: m.left, x2: W - m.right, y1: y(k.ceiling), y2: y(k.ceiling), class: 'ceiling-line' }));
    chart.append(text({ x: W - m.right, y: y(k.ceiling) - 4, 'text-anchor': 'end' }, `ceiling ${k.ceiling}`));
  } else chart.append(text({ x: W - m.right, y: m.top - 4, 'text-anchor': 'end' }, `ceiling ${k.ceiling}, above the scale`));
  const points = k.series.map((d, i) => `${x(i).toFixed(1)},${y(d.held).toFixed(1)}`).join(' ');
  chart.append(svg('polyline', { points, class: 'held' }));
  const bandTop = m.top + plotH + gap;
  const barY = (v: number) => bandTop + m.band - (v / mostGone) * m.band;
  chart.append(svg('line', { x1: m.left, x2: W - m.right, y1: bandTop + m.band, y2: bandTop + m.band, class: 'axis' }));
  chart.append(text({ x: m.left, y: bandTop - 2 }, `forgotten per day (bars up to ${mostGone})`));
  k.series.forEach((d, i) => {
    let base = 0;
    for (const rule of RULES) {
      const n = d.forgotten[rule];
      if (n === 0) continue;
      const bar = svg('rect', {
        x: x(i) - step * 0.35,
        y: barY(base + n),
        width: Math.max(step * 0.7, 1),
        height: barY(base) - barY(base + n),
        class: `bar ${rule}`,
      });
      bar.dataset.rule = rule;
      bar.dataset.count = String(n);
      base += n;
      chart.append(bar);
    }
  });
  const every = Math.max(1, Math.ceil(k.series.length / Math.max(2, Math.floor((W - m.left - m.right) / 64))));
  k.series.forEach((d, i) => {
    if ((k.series.length - 1 - i) % every !== 0) return;
    const last = i === k.series.length - 1;
    chart.append(text({ x: last ? W - m.right : x(i), y: H - 6, 'text-anchor': last ? 'end' : 'middle' }, shortDay(d.day)));
  });
  for (const t of chart.querySelectorAll('text')) t.setAttribute('aria-hidden', 'true');
  return chart;
}

function drawPicture(picture: Picture): void {
  const box = $('time');
  const W = chartWidth(box);
  const mostGone = niceScale(Math.max(1, ...picture.kinds.flatMap((k) => k.series.map(goneOn)))).top;
  box.replaceChildren(
    ...picture.kinds.map((k) => {
      const figure = el('figure', undefined, 'card kind-picture');
      figure.dataset.kind = k.kind;
      figure.append(
        el('h3', `${k.kind}: ${k.count} of ${k.ceiling}`),
        kindPicture(k, W - 34, mostGone),
        el('figcaption', pictureText(k)),
      );
      return figure;
    }),
  );
  if (picture.partial)
    box.append(
      el('p', 'Drawn from the latest 2,000 memories and journal lines: older days may show fewer than there were.', 'hint'),
    );
  $('time-legend').replaceChildren(
    legendItem('held', 'memories held at the end of the day'),
    legendItem('ceiling-mark', 'the kind’s ceiling'),
    ...RULES.map((rule) => legendItem(rule, `forgotten by ${rule}: ${RULE_WORDS[rule]}`)),
  );
}

/** Draws the picture again at the window's new width. */
export function redrawPicture(): void {
  if (lastPicture) drawPicture(lastPicture);
}

export async function loadPicture(): Promise<void> {
  const start = Math.floor(Date.now() / DAY_MS) * DAY_MS - (PICTURE_DAYS - 1) * DAY_MS;
  const memories = await newestWhile<MemoriesJson, PageMemory>(
    'api/memories',
    (a) => a.memories,
    (m) => Date.parse(m.createdAt) >= start,
    'created',
  );
  const lines = await newestWhile<JournalJson, Line>(
    'api/journal',
    (a) => a.lines,
    (l) => Date.parse(l.at) >= start,
  );
  if (!state.overview) return;
  lastPicture = { kinds: pictureOf(state.overview, memories.items, lines.items), partial: memories.partial || lines.partial };
  drawPicture(lastPicture);
}
