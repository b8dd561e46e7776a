import type { CurationRules, KindRule } from '../model.js';
import { any, type Condition, holds, type MemoryFacts, not, pinned, usefulSinceCutoff } from './condition.js';
import { type Formula, VALUES } from './formula.js';
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

/**
 * Whether a memory is in the expiry index (the `expires` flag, the only rows the sweeper reads): its
 * kind has a time-to-live and it is not pinned.
 */
export const inExpiryIndexIn = <N, B>(f: Formula<N, B>, memory: { readonly pinned: B; readonly kindExpires: B }): B =>
  f.and(memory.kindExpires, f.not(memory.pinned));

/** {@link inExpiryIndexIn} over values. */
export const inExpiryIndex = (memory: { readonly pinned: boolean; readonly kindExpires: boolean }): boolean =>
  inExpiryIndexIn(VALUES, memory);

/**
 * The `expires` flag after a restatement changes the pin (policy/pins.ts `PinChange`): a pin takes
 * the memory out of the expiry index, an unpin puts it back when its kind has a time-to-live, and
 * keeping the pin keeps the flag.
 */
export const expiresAfterIn = <N, B>(
  f: Formula<N, B>,
  was: B,
  change: { readonly pin: B; readonly unpin: B },
  kindExpires: B,
): B => f.when(change.unpin, kindExpires, f.and(was, f.not(change.pin)));

/** {@link expiresAfterIn} over values. */
export const expiresAfter = (was: boolean, change: { readonly pin: boolean; readonly unpin: boolean }, kindExpires: boolean) =>
  expiresAfterIn(VALUES, was, change, kindExpires);

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
