import type { JournalRule, Memory, Scope } from '../memory/model.js';
import type { ExpiryCutoff, KindCutoff } from '../memory/policy/expiry.js';
import type { RankedMemory, RecallQuery } from './curation-store.js';

/**
 * What the memory page reads and changes: recall's ranking without touching anything, listings,
 * one memory, who wrote them, the journal's counts by hour and day, pins, and what goes next.
 * Looking is not recalling: nothing here changes a memory's usefulness.
 */
export interface PageStore {
  /** Ranks exactly as recall does, but writes nothing. */
  search(query: RecallQuery): Promise<RankedMemory[]>;
  /** Live memories of some kinds, filtered, in the order asked (newest first by default), read only. */
  browse(query: BrowseQuery): Promise<MemoryPage>;
  /** One live memory of the caller by id, read only; undefined for anyone else's, an expired or an unknown id. */
  memory(scope: Scope, id: string, expiry: readonly ExpiryCutoff[]): Promise<Memory | undefined>;
  /** Who wrote the caller's live memories of some kinds (at most `limit` pairs), read only. */
  writers(scope: Scope, kinds: readonly KindCutoff[], limit: number): Promise<WriterCount[]>;
  /** Journal lines since an instant, counted per UTC hour and rule. */
  journalByHour(scope: Scope, since: Date): Promise<JournalHourCount[]>;
  /** Journal lines since an instant, counted per UTC day and rule. */
  journalByDay(scope: Scope, since: Date): Promise<JournalDayCount[]>;
  /** Pins or unpins one live memory, within the pin limit; its usefulness stays as it was. */
  setPinned(plan: PinPlan): Promise<PinResult>;
  /**
   * Pins or unpins a set of memories as one change: every one, or none when one of them is not a
   * live memory of the caller or the pins would pass the limit; usefulness stays as it was.
   */
  setPinnedMany(plan: PinSetPlan): Promise<PinSetResult>;
  /** Per kind, the first `perKind` memories a ceiling would evict, in eviction order (policy/eviction.ts). */
  nextToGo(scope: Scope, kinds: readonly KindCutoff[], perKind: number): Promise<NextToGo[]>;
}

/** A page of live memories in the order asked for. */
export interface MemoryPage {
  readonly memories: readonly Memory[];
  readonly nextCursor: string | undefined;
  /** How many live memories match the query's kinds and filters in all; undefined on a page past the last. */
  readonly total?: number;
}

/** The orders memories can be listed in, each descending: created, last useful, recall count. */
export type MemoryOrder = 'created' | 'last_useful' | 'recalls';

/** Which memories a listing keeps: each filter left out keeps every memory. */
export interface MemoryFilters {
  readonly agent?: string;
  readonly client?: string;
  /** A piece of the origin text, in any case. */
  readonly origin?: string;
  readonly pinned?: boolean;
  /** True: only memories linked to a conflicting one; false: only those without. */
  readonly conflicting?: boolean;
}

/** What to list: some kinds, each with its expiry cutoff (null without a TTL), one page after `cursor`. */
export interface BrowseQuery {
  readonly scope: Scope;
  readonly kinds: readonly KindCutoff[];
  readonly pageSize: number;
  readonly cursor: string | undefined;
  /** Newest first unless said otherwise. */
  readonly order?: MemoryOrder;
  readonly filters?: MemoryFilters;
}

/** Who wrote a user's live memories: one key name and client, with how many. */
export interface WriterCount {
  readonly agent: string;
  readonly client: string;
  readonly memories: number;
}

/** How many journal lines of one rule fell in one UTC hour (whole hours since the epoch). */
export interface JournalHourCount {
  readonly hour: number;
  readonly rule: JournalRule;
  readonly lines: number;
}

/** How many journal lines of one rule fell on one UTC day (`YYYY-MM-DD`). */
export interface JournalDayCount {
  readonly day: string;
  readonly rule: JournalRule;
  readonly lines: number;
}

/** Pin or unpin one memory: its kinds' expiry cutoffs find it live, the limit bounds pins. */
export interface PinPlan {
  readonly scope: Scope;
  readonly id: string;
  readonly pinned: boolean;
  readonly pinLimit: number;
  /** Every kind with a TTL and its cutoff: an expired memory cannot be pinned, an unpinned one can expire again. */
  readonly expiry: readonly ExpiryCutoff[];
}

export type PinResult =
  | { readonly status: 'changed' | 'unchanged' }
  | { readonly status: 'pin_limit' }
  /** No live memory of the caller has this id. */
  | { readonly status: 'gone' };

/** Pin or unpin a set of memories (ids in any case, repeats counted once): the limit bounds the pins the set adds. */
export interface PinSetPlan extends Omit<PinPlan, 'id'> {
  readonly ids: readonly string[];
}

export type PinSetResult =
  /** Every id is now in the state asked; `changed` lists those that were not, in id order. */
  | { readonly status: 'changed'; readonly changed: readonly string[] }
  /** Nothing changed: the pins the set adds would pass the limit. */
  | { readonly status: 'pin_limit' }
  /** Nothing changed: one of the ids is not a live memory of the caller. */
  | { readonly status: 'gone' };

/** A memory first in line to go: the least recently useful unpinned ones of its kind. */
export interface NextToGo {
  readonly id: string;
  readonly kind: string;
  readonly content: string;
  readonly lastUsefulAt: Date;
  readonly recallCount: number;
  /** Why it goes first: the memory that replaced it (policy/supersession.ts); null when it is current. */
  readonly supersededBy: string | null;
}
