import { el } from './dom.js';

/** What the two charts share: a scale with round ticks, a width in CSS pixels, the rules' words. */

export const RULES = ['ceiling', 'expiry', 'duplicate', 'superseded'] as const;
export type Rule = (typeof RULES)[number];
export const RULE_WORDS: Record<Rule, string> = {
  ceiling: 'evicted at a kind’s ceiling',
  expiry: 'expired after its kind’s time to live',
  duplicate: 'merged into the memory it restated',
  superseded: 'replaced by a newer memory, deleted after its grace period',
};

/** A scale from 0: its top and the ticks to label. */
export interface Scale {
  readonly top: number;
  readonly ticks: readonly number[];
}

/**
 * A scale for counts up to `most`: whole steps of 1, 2 or 5 × 10ⁿ, at most `most / 4` of them, and
 * the top the first step at or above `most`. Three memories read 0, 1, 2, 3; seven 0, 2, 4, 6, 8.
 */
export function niceScale(most: number, steps = 4): Scale {
  const reach = Math.max(1, Math.ceil(most));
  let step = 1;
  for (let power = 1; reach / step > steps; power *= 10) {
    step = [1, 2, 5, 10].map((f) => f * power).find((s) => reach / s <= steps) ?? 10 * power;
  }
  const top = Math.ceil(reach / step) * step;
  return { top, ticks: Array.from({ length: top / step + 1 }, (_, i) => i * step) };
}

/**
 * A chart's width in CSS pixels: the width it is drawn in, so that its 12 px labels render at 12 px
 * on a phone as on a desktop (a fixed viewBox scaled to 390 px made them about 6 px).
 */
export const chartWidth = (box: HTMLElement): number => Math.max(280, Math.min(Math.round(box.clientWidth || 640), 1000));

/** Arrow keys, Home and End move between the chart's periods (one of them in the tab order). */
export function moveFocus(event: KeyboardEvent, groups: readonly SVGGElement[]): void {
  const at = groups.indexOf(document.activeElement as SVGGElement);
  if (at < 0) return;
  const to = ({ ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: groups.length - 1 } as Record<string, number>)[event.key];
  if (to === undefined || to < 0 || to >= groups.length) return;
  event.preventDefault();
  groups[at]?.setAttribute('tabindex', '-1');
  groups[to]?.setAttribute('tabindex', '0');
  groups[to]?.focus();
}

/** A legend's item: a swatch and its words. */
export function legendItem(swatch: string, words: string): HTMLLIElement {
  const item = el('li');
  item.append(el('span', '', `swatch ${swatch}`), words);
  return item;
}
