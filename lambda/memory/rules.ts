import type { CurationRules, KindRule } from './model.js';
import { UnknownKindError } from './errors.js';
import type { ExpiryCutoff } from '../ports/memory-store.js';

/** DESIGN §4 defaults, used when no curation config file is given. */
export const DEFAULT_RULES: CurationRules = {
  kinds: {
    fact: { ceiling: 500, ttlSeconds: null },
    preference: { ceiling: 200, ttlSeconds: null },
    instruction: { ceiling: 100, ttlSeconds: null },
    event: { ceiling: 500, ttlSeconds: null },
    session: { ceiling: 100, ttlSeconds: 24 * 3600 },
  },
  pinLimit: 50,
  journalRetentionSeconds: 30 * 24 * 3600,
};

export function kindRule(rules: CurationRules, kind: string): KindRule {
  // Own properties only: `toString` or `__proto__` is no kind, whatever Object.prototype holds.
  const rule = Object.hasOwn(rules.kinds, kind) ? rules.kinds[kind] : undefined;
  if (!rule) throw new UnknownKindError(kind, Object.keys(rules.kinds));
  return rule;
}

/** The instant before which a non-pinned memory of this kind counts as expired, or null if it never expires. */
export function expiredBefore(rule: KindRule, now: Date): Date | null {
  return rule.ttlSeconds === null ? null : new Date(now.getTime() - rule.ttlSeconds * 1000);
}

/** Expiry cutoffs of the given kinds that have a TTL. */
export function expiryCutoffs(rules: CurationRules, kinds: readonly string[], now: Date): ExpiryCutoff[] {
  return kinds.flatMap((kind) => {
    const cutoff = expiredBefore(kindRule(rules, kind), now);
    return cutoff ? [{ kind, expiredBefore: cutoff }] : [];
  });
}

/**
 * Rows to ask of the vector search so expiry checks on the returned rows cannot starve the
 * `wanted` live ones: a kind holds at most its ceiling, so at most that many of its rows can be expired.
 */
export function recallCandidates(rules: CurationRules, kinds: readonly string[], wanted: number): number {
  return kinds.reduce((n, kind) => {
    const rule = kindRule(rules, kind);
    return rule.ttlSeconds === null ? n : n + rule.ceiling;
  }, wanted);
}
