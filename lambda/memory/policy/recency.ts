import type { Fusion } from './ranking.js';

/**
 * Two rules on the last step of recall (decision 0113), over what it has already chosen.
 *
 * **The newer on a subject ranks first.** Without a model judge an update is stored as one more
 * memory ("the meeting moved to Thursday" beside "the meeting is on Tuesday"), and both come back.
 * Two memories found of the same kind lie on the same subject when both are statements (at most
 * `FUSION.statementTerms` terms: a long memory holds many subjects, and the offline embedder puts
 * long texts near each other) and their vectors are within the embedder's calibrated relevance
 * distance of each other (`unrelatedBeyond`, the distance the recall floor and the judge's
 * candidates use). Each memory found then scores the best score of itself and of every memory
 * found on its subject written before it, and equal scores go newest first: a newer memory takes at least its older neighbour's place, the older comes right after it, and
 * nothing else moves. It reorders what recall returns and never changes which memories those are;
 * nothing is deleted or marked.
 *
 * **What follows a hit takes at most a share of the places.** The memories that follow a hit in
 * its origin (decision 0081) come at a share of its score and used to take any place they beat.
 * Now the first `limit` − ⌊`FUSION.followerPlaces` × `limit`⌋ memories the arms ranked (direct
 * hits) always keep their place, and the remaining places go to the best of the rest, followers
 * and other direct hits alike: what follows a hit takes at most that share of the places when the
 * arms found enough, any empty place otherwise, and never pushes one of the first direct hits out.
 */

/** Cosine distances are never negative: within this one no two memories are on the same subject, and recency orders nothing. */
export const NO_SUBJECT = -1;

/** The distance within which two found memories are on the same subject; an embedder without a calibrated distance has none. */
export const sameSubjectWithin = (unrelatedBeyond: number | undefined): number => unrelatedBeyond ?? NO_SUBJECT;

/** How many of a recall's places are not kept for its first direct hits. */
export const followerPlaces = (fusion: Pick<Fusion, 'followerPlaces'>, limit: number): number =>
  Math.floor(fusion.followerPlaces * limit);

/** A memory found, as the newer-first rule reads it. */
export interface Found {
  readonly id: string;
  readonly kind: string;
  readonly createdAt: Date;
  readonly score: number;
  /** Its length in terms. */
  readonly length: number;
}

/**
 * The found memories with the newer-first rule's scores, best first (equal scores newest first,
 * then by id), as the recall statement orders them; `distance` between two found memories' vectors.
 */
export function newestFirst<T extends Found>(
  found: readonly T[],
  within: { readonly distance: number; readonly terms: number; readonly reach: number },
  distance: (a: T, b: T) => number,
): T[] {
  const scored = found.map((t) => ({
    ...t,
    score: Math.max(
      ...found
        .filter(
          (o) =>
            o.kind === t.kind &&
            (o.id === t.id ||
              (o.createdAt.getTime() < t.createdAt.getTime() &&
                distance(o, t) <= within.distance &&
                Math.max(o.length, t.length) <= within.terms &&
                t.score >= within.reach * o.score)),
        )
        .map((o) => o.score),
    ),
  }));
  return scored.sort(
    (a, b) => b.score - a.score || b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}
