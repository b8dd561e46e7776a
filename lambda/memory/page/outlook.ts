import type { CurationRules, KindRule } from '../model.js';
import { expiresAt } from '../policy/expiry.js';
import { kindRule } from '../policy/kinds.js';
import { pinAllowed } from '../policy/pins.js';

/**
 * What the policy decides about one memory as the page shows it: when it expires, what Pin and
 * Unpin would do, and why it is where it is in line. The page shows these and computes none of
 * them (decision 0138), so a rule changed in `policy/` reaches the page without a line of it.
 */

/** The pins a user holds against the limit, and how many more fit. */
export interface PinRoom {
  readonly pinned: number;
  readonly limit: number;
  /** Pins that still fit: 0 at the limit. */
  readonly room: number;
}

export const pinRoom = (pinned: number, limit: number): PinRoom => ({ pinned, limit, room: Math.max(limit - pinned, 0) });

/** Whether Pin keeps this memory, and if not the reason in words a person acts on. */
export interface PinVerdict {
  readonly allowed: boolean;
  /** Why not, as a code (`pin_limit`, `replaced`) and in words; null when Pin is allowed. */
  readonly refusal: 'pin_limit' | 'replaced' | null;
  readonly reason: string | null;
}

/** What the page may show and offer for one memory. */
export interface MemoryOutlook {
  /** When it expires as it stands (ISO 8601); null while pinned or when its kind never expires. */
  readonly expiresAt: string | null;
  /** When it would expire once unpinned; null when it is not pinned or its kind never expires. */
  readonly expiresIfUnpinned: string | null;
  /** Unpinned now, it would expire at once: it was last useful longer ago than its kind's time to live. */
  readonly unpinExpiresAtOnce: boolean;
  readonly pin: PinVerdict;
}

/** The facts of a memory the outlook reads. */
export interface OutlookFacts {
  readonly kind: string;
  readonly pinned: boolean;
  readonly lastUsefulAt: Date;
  readonly supersededBy: string | null;
}

/** Why a replaced memory is not pinned: recall never returns it, so a pin would only hold a slot. */
export const REPLACED_PIN_REASON =
  'It was replaced by a newer memory: recall never returns it, so a pin would only hold a pin slot. ' +
  'If the older one is right, forget the newer one instead: this one is current again.';

/** Pin's verdict for one memory, given the pins held now. */
export function pinVerdict(memory: Pick<OutlookFacts, 'pinned' | 'supersededBy'>, room: PinRoom): PinVerdict {
  if (memory.pinned) return { allowed: true, refusal: null, reason: null };
  if (memory.supersededBy !== null) return { allowed: false, refusal: 'replaced', reason: REPLACED_PIN_REASON };
  if (!pinAllowed({ pin: true, alreadyPinned: false }, room.pinned, room.limit))
    return {
      allowed: false,
      refusal: 'pin_limit',
      reason: `${room.pinned} of ${room.limit} pinned: the pin limit. Unpin one to pin another.`,
    };
  return { allowed: true, refusal: null, reason: null };
}

const isoOrNull = (d: Date | null) => (d === null ? null : d.toISOString());

/** The outlook of one memory at `now`, with the pins held now. */
export function outlookOf(rules: CurationRules, memory: OutlookFacts, room: PinRoom, now: Date): MemoryOutlook {
  const rule: KindRule = kindRule(rules, memory.kind);
  const expiry = expiresAt(rule, memory.lastUsefulAt);
  return {
    expiresAt: memory.pinned ? null : isoOrNull(expiry),
    expiresIfUnpinned: memory.pinned ? isoOrNull(expiry) : null,
    unpinExpiresAtOnce: memory.pinned && expiry !== null && expiry.getTime() <= now.getTime(),
    pin: pinVerdict(memory, room),
  };
}

/** A memory in the eviction line, as the reason reads it. */
export interface InLine {
  readonly lastUsefulAt: Date;
  readonly supersededBy: string | null;
}

/** Why the memory at `index` of a kind's eviction line (the INSERT's victim order) is where it is. */
export function evictionReason(line: readonly InLine[], index: number, kind: string): string {
  const m = line[index];
  const before = line[index - 1];
  if (m?.supersededBy) return 'Superseded by a newer memory: superseded memories go first, then after their grace period.';
  if (!before) return `First to go: the least recently useful unpinned ${kind} memory.`;
  if (before.supersededBy) return `First current memory in line: the least recently useful unpinned ${kind} memory.`;
  if (before.lastUsefulAt.getTime() === m?.lastUsefulAt.getTime())
    return 'Last useful at the same instant as the one above: the tie goes by id.';
  return 'Goes after the one above: it was useful more recently.';
}

/** Why the memory at `index` of a kind's expiry line is where it is; null when it just follows. */
export function expiryReason(line: readonly { readonly expiresAt: Date }[], index: number): string | null {
  const before = line[index - 1];
  if (!before) return 'Expires first: last useful longest ago.';
  return before.expiresAt.getTime() === line[index]?.expiresAt.getTime() ? 'Expires at the same instant as the one above.' : null;
}
