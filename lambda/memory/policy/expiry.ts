import type { CurationRules, KindRule } from '../model.js';
import { any, type Condition, holds, type MemoryFacts, not, pinned, usefulSinceCutoff } from './condition.js';
import { kindRule } from './kinds.js';

/**
 * What counts as live: a memory is returned, counted (ceilings, the pin limit, counts, next to go)
 * and can absorb a restatement while it is pinned, or its kind has no time-to-live, or it was last
 * useful at or after its kind's cutoff (now minus the TTL). Otherwise it has expired: it leaves the
 * store only as `expiry`, journaled, whoever removes it (decision 0055).
 */
export const LIVE: Condition = any(pinned, usefulSinceCutoff);

/** Expired: the memory is not live. */
export const EXPIRED: Condition = not(LIVE);

/** Whether a memory of a kind with this cutoff is live. */
export const isLive = (memory: MemoryFacts, cutoff: Date | null): boolean => holds(LIVE, memory, { cutoff, spared: null });

/** The instant before which a non-pinned memory of this kind counts as expired, or null if it never expires. */
export function expiredBefore(rule: KindRule, now: Date): Date | null {
  return rule.ttlSeconds === null ? null : new Date(now.getTime() - rule.ttlSeconds * 1000);
}

/** A kind with a TTL and the instant before which its non-pinned memories count as expired. */
export interface ExpiryCutoff {
  readonly kind: string;
  readonly expiredBefore: Date;
}

/** A kind searched or listed, with its cutoff (null: it never expires). */
export interface KindCutoff {
  readonly kind: string;
  readonly expiredBefore: Date | null;
}

/** Expiry cutoffs of the given kinds that have a TTL. */
export function expiryCutoffs(rules: CurationRules, kinds: readonly string[], now: Date): ExpiryCutoff[] {
  return kinds.flatMap((kind) => {
    const cutoff = expiredBefore(kindRule(rules, kind), now);
    return cutoff ? [{ kind, expiredBefore: cutoff }] : [];
  });
}

/** Each kind with its cutoff now; an unknown kind is refused. */
export function kindCutoffs(rules: CurationRules, kinds: readonly string[], now: Date): KindCutoff[] {
  return kinds.map((kind) => ({ kind, expiredBefore: expiredBefore(kindRule(rules, kind), now) }));
}

/** When a memory last useful at `lastUsefulAt` expires under this rule, or null if it never does. */
export function expiresAt(rule: KindRule, lastUsefulAt: Date): Date | null {
  return rule.ttlSeconds === null ? null : new Date(lastUsefulAt.getTime() + rule.ttlSeconds * 1000);
}

/**
 * Rows to ask of a vector search so that expiry checks on the returned rows cannot starve the
 * `wanted` live ones: a kind holds at most its ceiling, so at most that many of its rows can be expired.
 */
export function recallCandidates(rules: CurationRules, kinds: readonly string[], wanted: number): number {
  return kinds.reduce((n, kind) => {
    const rule = kindRule(rules, kind);
    return rule.ttlSeconds === null ? n : n + rule.ceiling;
  }, wanted);
}
