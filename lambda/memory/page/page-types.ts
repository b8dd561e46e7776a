import type { JudgeStatus } from '../judge-health.js';
import type { MemoryFilters, MemoryOrder } from '../../ports/page-store.js';
import type { PinRoom, PinVerdict } from './outlook.js';

/** The memory page's first view: counts against ceilings, the pin limit, the providers in use. */
export interface Overview {
  readonly kinds: readonly {
    readonly kind: string;
    readonly ceiling: number;
    readonly ttlSeconds: number | null;
    readonly count: number;
    readonly pinned: number;
  }[];
  readonly pinned: number;
  readonly pinLimit: number;
  /** The pins held, the limit and the room left, as the policy counts them. */
  readonly pins: PinRoom;
  readonly judge: JudgeStatus;
  readonly embedder: string;
}

export interface BrowseInput {
  /** One kind, or every configured kind. */
  readonly kind?: string;
  readonly cursor?: string;
  readonly limit?: number;
  /** Newest first by default. */
  readonly order?: MemoryOrder;
  readonly filters?: MemoryFilters;
}

/** Automatic deletions of one UTC hour (its start, ISO 8601), per rule. */
export interface JournalHour {
  readonly hour: string;
  readonly ceiling: number;
  readonly expiry: number;
  readonly duplicate: number;
  readonly superseded: number;
}

/** Automatic deletions of one UTC day, per rule. */
export interface JournalDay {
  readonly day: string;
  readonly ceiling: number;
  readonly expiry: number;
  readonly duplicate: number;
  readonly superseded: number;
}

/** What one kind will lose next: by the ceiling (least recently useful) and, with a TTL, by expiry. */
export interface KindOutlook {
  readonly kind: string;
  readonly ceiling: number;
  readonly count: number;
  /** At its ceiling: the next new memory evicts the first in line. */
  readonly full: boolean;
  /** `supersededBy` names the memory that replaced one: why it goes first. */
  readonly evictNext: readonly {
    id: string;
    content: string;
    lastUsefulAt: Date;
    recallCount: number;
    supersededBy: string | null;
    /** Why it is where it is in line. */
    reason: string;
    pin: PinVerdict;
  }[];
  readonly expiringNext: readonly { id: string; content: string; expiresAt: Date; reason: string | null; pin: PinVerdict }[];
}
