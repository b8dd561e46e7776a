import type { KindRule } from '../model.js';
import { superseded } from './condition.js';

/**
 * Supersession (decision 0107): when the judge says a new memory contradicts an existing one of
 * the same user and kind, the new one supersedes it. The older stays, marked superseded by the
 * newer, for a grace period: recall leaves it out unless asked for superseded memories, a ceiling
 * evicts it first, and once the grace period is over the sweeper deletes it, journaled as
 * `superseded`. A superseded memory counts as such only while the memory that replaced it exists:
 * forgetting the newer makes the older current again. Only a memory the judge named is retired.
 */

/** A newer memory replaced it, and that memory still exists. */
export const SUPERSEDED = superseded;

/**
 * How many current memories of the kind the judge may be asked about per remember: an update is
 * often not the nearest memory (other facts about the same person sit closer, and among many
 * look-alikes — "Desk 7 is now assigned to another" beside nine other desks' updates — the nearest
 * are the other updates). The judge is asked about them in order, and the first `same` or
 * `contradicts` ends the asking, so a remember costs at most this many model calls.
 */
export const JUDGED_CANDIDATES = 3;

/** Of the memories holding the new memory's rarest stored term, at most this many are read to find `byWords` (a bounded read). */
export const WORDS_READ = 50;

/**
 * The memories the judge is asked about, words and meaning together (decision 0124): the nearest
 * in meaning (always asked, as before supersession); then the current memory that shares the new
 * memory's rarest stored word (`byWords`: its subject, a name or a number, which a look-alike does
 * not share); then the next nearest within the embedder's relevance distance (`unrelatedBeyond`,
 * calibrated on dev for the recall floor, policy/floor.ts), so an unrelated fact is never asked
 * about for its meaning alone. At most `JUDGED_CANDIDATES`, each once.
 */
export function judgedCandidates<C extends { readonly id: string; readonly distance: number }>(
  nearestFirst: readonly C[],
  byWords: C | undefined,
  unrelatedBeyond: number | undefined,
): C[] {
  const [nearest, ...rest] = nearestFirst;
  const near = rest.filter((c) => unrelatedBeyond === undefined || c.distance <= unrelatedBeyond);
  const ordered = [nearest, byWords, ...near].filter((c): c is C => c !== undefined);
  return ordered.filter((c, i) => ordered.findIndex((o) => o.id === c.id) === i).slice(0, JUDGED_CANDIDATES);
}

/** How long a superseded memory is kept when its kind says nothing: seven days. */
export const SUPERSEDED_GRACE_SECONDS = 7 * 24 * 3600;

/** Seconds a superseded memory of this kind is kept after it was replaced. */
export const supersededGraceSeconds = (rule: KindRule): number => rule.supersededGraceSeconds ?? SUPERSEDED_GRACE_SECONDS;

/** The instant before which a memory of this kind superseded then has served its grace period. */
export const supersededBefore = (rule: KindRule, now: Date): Date =>
  new Date(now.getTime() - supersededGraceSeconds(rule) * 1000);

/** Whether a memory superseded at `supersededAt` is past its kind's grace period now. */
export const graceOver = (rule: KindRule, supersededAt: Date, now: Date): boolean =>
  supersededAt.getTime() < supersededBefore(rule, now).getTime();
