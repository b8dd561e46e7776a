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
