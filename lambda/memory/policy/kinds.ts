import { UnknownKindError } from '../errors.js';
import type { CurationRules, KindRule } from '../model.js';

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

/** The rule of a configured kind; anything else is refused with the list of kinds. */
export function kindRule(rules: CurationRules, kind: string): KindRule {
  // Own properties only: `toString` or `__proto__` is no kind, whatever Object.prototype holds.
  const rule = Object.hasOwn(rules.kinds, kind) ? rules.kinds[kind] : undefined;
  if (!rule) throw new UnknownKindError(kind, Object.keys(rules.kinds));
  return rule;
}

/** Every configured kind, in the order the rules list them. */
export const kindsOf = (rules: CurationRules): string[] => Object.keys(rules.kinds);
