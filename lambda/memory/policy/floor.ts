import { type Formula, VALUES } from './formula.js';

/**
 * The relevance floor (decision 0058): recall returns a memory only if the lexical arm found it
 * (it shares a rarer word with the query), or it lies within the embedder's calibrated distance of
 * the query (`unrelatedBeyond`); a memory that follows a returned one in its origin comes with it.
 * So a query nothing matches returns nothing. An embedder without a calibrated distance has no floor,
 * nor have the evaluation rankings that measure an arm alone or the floor's cost.
 */

/** Cosine distance never exceeds 2: a floor there keeps every neighbour. */
export const NO_FLOOR = 2;

/** The farthest distance at which a memory the lexical arm did not find still counts as related. */
export function farthestRelated(unrelatedBeyond: number | undefined, floored: boolean): number {
  return floored && unrelatedBeyond !== undefined ? unrelatedBeyond : NO_FLOOR;
}

/** Whether a ranked memory is related to the query: found by its words, or near enough in meaning. */
export const relatedIn = <N, B>(f: Formula<N, B>, hit: { readonly foundByWords: B; readonly distance: N }, farthest: N): B =>
  f.or(hit.foundByWords, f.atMost(hit.distance, farthest));

/** {@link relatedIn} over values. */
export const isRelated = (hit: { readonly foundByWords: boolean; readonly distance: number }, farthest: number): boolean =>
  relatedIn(VALUES, hit, farthest);
