import { el } from './dom.js';

/** Times as a person reads them: relative in the text, absolute on hover. */

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const STEPS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 31_536_000],
  ['month', 2_592_000],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

/** "3 minutes ago", "in 2 hours": the nearest whole unit. */
export function relative(iso: string): string {
  const seconds = (Date.parse(iso) - Date.now()) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(seconds) >= size || unit === 'second') return RELATIVE.format(Math.round(seconds / size), unit);
  }
  return '';
}

export const absolute = (iso: string): string => new Date(iso).toLocaleString();

/** A `<time>`: relative in the text, absolute on hover. */
export function timeEl(iso: string): HTMLTimeElement {
  const node = el('time', relative(iso));
  node.dateTime = iso;
  node.title = absolute(iso);
  return node;
}

/** "3d", "5h", "never": a span of seconds, rounded to its largest unit. */
export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return 'never';
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
  ] as const)
    if (seconds >= size) return `${Math.round(seconds / size)}${unit}`;
  return `${Math.round(seconds)}s`;
}

/** A UTC day (YYYY-MM-DD) as "Mar 4". */
export const shortDay = (day: string, weekday = false): string =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, {
    timeZone: 'UTC',
    month: 'short',
    day: 'numeric',
    ...(weekday ? { weekday: 'short' } : {}),
  });
