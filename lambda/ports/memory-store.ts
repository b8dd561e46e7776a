import type { JournalLine, JournalRule, Memory, Principal, RecalledMemory, Source } from '../memory/model.js';
import type { Fusion, LexicalScoring } from '../memory/ranking.js';

/** The (region, user) partition every store call is confined to. */
export type Scope = Pick<Principal, 'region' | 'userId'>;

/** The nearest live neighbour and the exact restatement (same fingerprint) of a new memory, if any. */
export interface Neighbours {
  readonly nearest: { readonly id: string; readonly content: string; readonly distance: number } | undefined;
  /** `live` false: the restatement's memory has expired and awaits removal; it must not absorb anything. */
  readonly exact: { readonly id: string; readonly live: boolean } | undefined;
}

/** How a partition read tells expired rows apart: the kind's cutoff and how many vector candidates to ask for. */
export interface PartitionExpiry {
  /** Non-pinned memories last useful before this instant are expired; null for a kind without a TTL. */
  readonly expiredBefore: Date | null;
  /** Rows asked of the vector search so that expired ones cannot hide the nearest live one. */
  readonly candidates: number;
}

export interface InsertPlan {
  readonly scope: Scope;
  readonly id: string;
  readonly kind: string;
  readonly content: string;
  readonly fingerprint: string;
  readonly embedding: readonly number[];
  /** The lexical arm's distinct terms of the content (LexicalAnalyzer.terms). */
  readonly terms: readonly string[];
  /** How often each term occurs, in the same order (LexicalAnalyzer.frequencies); once each when absent. */
  readonly frequencies?: readonly number[];
  readonly pinned: boolean;
  readonly source: Source;
  /** The memory the judge said this one contradicts: both get linked. */
  readonly conflictsWith: string | undefined;
  readonly ceiling: number;
  readonly pinLimit: number;
  /** How many latest restatement sources a memory keeps. */
  readonly sourcesKept: number;
  /** The kind's expiry cutoff (null without a TTL): expired rows count for nothing and are removed. */
  readonly expiredBefore: Date | null;
}

export type InsertResult =
  | { readonly status: 'inserted'; readonly id: string; readonly evicted: number }
  /** A concurrent call stored the same fingerprint first; this one was absorbed into it. */
  | { readonly status: 'merged'; readonly id: string }
  | { readonly status: 'pin_limit' }
  | { readonly status: 'kind_full' }
  /** The same fingerprint is held by an expired memory: expire the partition, then try again. */
  | { readonly status: 'expired_twin' };

/** Memories of one partition written at once, known to fit under its ceiling: no eviction, no duplicate check. */
export interface LoadPlan {
  readonly scope: Scope;
  readonly kind: string;
  /** Whether they go into the expiry index: the kind has a TTL (and they are not pinned). */
  readonly expires: boolean;
  readonly at: Date;
  readonly agent: string;
  readonly client: string;
  readonly memories: readonly {
    readonly id: string;
    readonly content: string;
    readonly fingerprint: string;
    readonly embedding: readonly number[];
    readonly frequencies: ReadonlyMap<string, number>;
  }[];
}

export interface MergePlan {
  readonly scope: Scope;
  readonly targetId: string;
  readonly kind: string;
  readonly pin: boolean;
  readonly source: Source;
  readonly pinLimit: number;
  readonly sourcesKept: number;
  /** The kind's expiry cutoff (null without a TTL): an expired target counts as gone. */
  readonly expiredBefore: Date | null;
}

export type MergeResult =
  | { readonly status: 'merged'; readonly id: string }
  | { readonly status: 'pin_limit' }
  /** The target disappeared (forgotten or evicted) between the read and the write. */
  | { readonly status: 'gone' };

export interface RecallQuery {
  readonly scope: Scope;
  /** The vector arm's query; also gives every returned memory its distance. */
  readonly embedding: readonly number[];
  /** The lexical arm's query terms; with none, the vector arm runs alone. */
  readonly terms: readonly string[];
  /** How the arms' ranks are fused; an arm of weight 0 still runs, and what only it found is not returned. */
  readonly fusion: Fusion;
  /** How the lexical arm scores (BM25's k1 and b) and which terms count as very common. */
  readonly lexical: LexicalScoring;
  /**
   * The relevance floor: a memory the lexical arm did not find is ranked only within this cosine
   * distance of the query (so a query nothing matches returns nothing; what follows a ranked memory
   * in its origin comes with it, decision 0081). Absent: no floor.
   */
  readonly farthest?: number;
  /** Kinds searched, each with the instant before which its non-pinned memories count as expired. */
  readonly kinds: readonly { readonly kind: string; readonly expiredBefore: Date | null }[];
  readonly limit: number;
  /** Rows asked of the vector search so that expiry checks on the returned rows cannot starve the result. */
  readonly candidates: number;
  readonly now: Date;
}

/** A partition whose vectors are in cells, or should be (decision 0083). */
export interface CellPartition {
  readonly userId: string;
  readonly kind: string;
  /** Memories it holds now, by its kept count. */
  readonly memories: number;
  /** How many it held when its cells were built; null when it has none. */
  readonly cellsFor: number | null;
}

/** What a build of a partition's cells is given: how many, how refined, and what the sweeper saw. */
export interface CellBuild {
  readonly cells: number;
  readonly rounds: number;
  /** The partition's size the cells are built for. */
  readonly memories: number;
  /** The size its cells were for when the sweeper looked (null: none); a build finding otherwise does nothing. */
  readonly cellsFor: number | null;
}

export interface JournalPage {
  readonly lines: readonly JournalLine[];
  readonly nextCursor: string | undefined;
}

/** A kind with a TTL and the instant before which its non-pinned memories count as expired. */
export interface ExpiryCutoff {
  readonly kind: string;
  readonly expiredBefore: Date;
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
  readonly kinds: readonly { readonly kind: string; readonly expiredBefore: Date | null }[];
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

/** One memory as an import writes it: everything it had where it came from, under a new id. */
export interface ImportedMemory {
  readonly id: string;
  readonly kind: string;
  readonly content: string;
  readonly fingerprint: string;
  readonly embedding: readonly number[];
  readonly frequencies: ReadonlyMap<string, number>;
  readonly pinned: boolean;
  /** In the expiry index: the kind has a TTL and the memory is not pinned. */
  readonly expires: boolean;
  readonly createdAt: Date;
  readonly lastUsefulAt: Date;
  readonly recallCount: number;
  readonly restatements: number;
  readonly source: Omit<Source, 'at'>;
  readonly restatedBy: readonly Source[];
}

/** An import of one user's memories and journal lines, written all at once or not at all. */
export interface ImportPlan {
  readonly scope: Scope;
  /** Every kind the memories and lines name, with its ceiling and expiry cutoff. */
  readonly kinds: readonly { readonly kind: string; readonly ceiling: number; readonly expiredBefore: Date | null }[];
  readonly pinLimit: number;
  readonly memories: readonly ImportedMemory[];
  /** Conflict links between the imported memories' ids, each direction given. */
  readonly links: readonly (readonly [string, string])[];
  readonly journal: readonly JournalLine[];
}

export type ImportResult =
  | {
      readonly status: 'imported';
      readonly written: number;
      /** Memories equal to a live one already there, not written again. */
      readonly alreadyPresent: number;
      readonly links: number;
      readonly journalLines: number;
    }
  /** Nothing was written: per kind, live memories and how many the import would add. */
  | {
      readonly status: 'refused';
      readonly kinds: readonly { readonly kind: string; readonly have: number; readonly adding: number }[];
      readonly pins: { readonly have: number; readonly adding: number };
    };

/** How many journal lines of one rule fell on one UTC day (`YYYY-MM-DD`). */
export interface JournalDayCount {
  readonly day: string;
  readonly rule: JournalRule;
  readonly lines: number;
}

/** A memory first in line to go: the least recently useful unpinned ones of its kind. */
export interface NextToGo {
  readonly id: string;
  readonly kind: string;
  readonly content: string;
  readonly lastUsefulAt: Date;
  readonly recallCount: number;
}

/** Storage of memories and the forgetting journal. Every method is one atomic round trip. */
export interface MemoryStore {
  /** Reads the nearest live memory of the same kind and any exact restatement of it. */
  neighbours(
    scope: Scope,
    kind: string,
    embedding: readonly number[],
    fingerprint: string,
    expiry: PartitionExpiry,
  ): Promise<Neighbours>;
  /** Removes the expired memories of one (user, kind), journaling each (rule `expiry`); returns how many. */
  expirePartition(scope: Scope, kind: string, expiredBefore: Date, now: Date): Promise<number>;
  /** Stores a new memory, links a conflict and evicts past the ceiling, journaling each eviction. */
  insert(plan: InsertPlan, now: Date): Promise<InsertResult>;
  /** Writes many memories of one partition at once, with their postings and statistics; returns how many. */
  load(plan: LoadPlan): Promise<number>;
  /** Absorbs a restatement into an existing memory and journals the merge. */
  merge(plan: MergePlan, now: Date): Promise<MergeResult>;
  /** The best unexpired memories first (fused vector and lexical ranks); marks the returned ones useful. */
  recall(query: RecallQuery): Promise<RecalledMemory[]>;
  /** Ranks exactly as {@link recall} does, but writes nothing: looking is not recalling. */
  search(query: RecallQuery): Promise<RecalledMemory[]>;
  /** Live memories of some kinds, filtered, in the order asked (newest first by default), read only. */
  browse(query: BrowseQuery): Promise<MemoryPage>;
  /** One live memory of the caller by id, read only; undefined for anyone else's, an expired or an unknown id. */
  memory(scope: Scope, id: string, expiry: readonly ExpiryCutoff[]): Promise<Memory | undefined>;
  /** Who wrote the caller's live memories of some kinds (at most `limit` pairs), read only. */
  writers(scope: Scope, kinds: BrowseQuery['kinds'], limit: number): Promise<WriterCount[]>;
  /** Journal lines since an instant, counted per UTC hour and rule. */
  journalByHour(scope: Scope, since: Date): Promise<JournalHourCount[]>;
  /** Pins or unpins one live memory, within the pin limit; its usefulness stays as it was. */
  setPinned(plan: PinPlan): Promise<PinResult>;
  /** Writes an import all at once, or nothing when a ceiling or the pin limit would be passed. */
  importMemories(plan: ImportPlan): Promise<ImportResult>;
  /** Journal lines since an instant, counted per UTC day and rule. */
  journalByDay(scope: Scope, since: Date): Promise<JournalDayCount[]>;
  /** Per kind, the first `perKind` unpinned live memories in eviction order (least recently useful first). */
  nextToGo(scope: Scope, kinds: BrowseQuery['kinds'], perKind: number): Promise<NextToGo[]>;
  /** Deletes the caller's live memories among `ids`; returns the ids actually deleted. */
  forgetIds(scope: Scope, ids: readonly string[], expiry: readonly ExpiryCutoff[]): Promise<string[]>;
  /**
   * Deletes all the caller's memories (of one kind, or all) and the matching journal lines; the
   * count is of the live memories among them.
   */
  forgetAll(
    scope: Scope,
    kind: string | undefined,
    expiry: readonly ExpiryCutoff[],
  ): Promise<{ memories: number; journalLines: number }>;
  /** Live (unexpired) memories per kind, and how many of them are pinned. */
  counts(
    scope: Scope,
    expiry: readonly ExpiryCutoff[],
  ): Promise<{ perKind: Record<string, number>; pinned: number; pinnedPerKind: Record<string, number> }>;
  journal(scope: Scope, pageSize: number, cursor: string | undefined): Promise<JournalPage>;
  /** Deletes one bounded batch of a region's expired memories of one kind, journaling each (rule `expiry`). */
  sweepExpired(region: string, kind: string, expiredBefore: Date, batch: number, now: Date): Promise<number>;
  /** Deletes one bounded batch of a region's journal lines older than the cutoff. */
  trimJournal(region: string, olderThan: Date, batch: number): Promise<number>;
  /** Puts one bounded batch of a kind's unpinned memories into the expiry index (a kind that gained a TTL). */
  markExpiring(region: string, kind: string, batch: number): Promise<number>;
  /** The kinds whose memories of a region are all in the expiry index, as last recorded. */
  expiringKinds(region: string): Promise<string[]>;
  /** Records the kinds whose memories of a region are all in the expiry index. */
  recordExpiringKinds(region: string, kinds: readonly string[]): Promise<void>;
  /** Clears one bounded batch of a region's term statistics that came down to zero. */
  clearEmptyTerms(region: string, batch: number): Promise<number>;
  /**
   * One page of a region's partitions that have cells or hold at least `from` memories, after
   * `after` in (user, kind) order. None on an engine whose vector index already reads by prefix
   * (CockroachDB): there the vector arm has no cells.
   */
  cellPartitions(region: string, from: number, batch: number, after?: CellPartition): Promise<CellPartition[]>;
  /**
   * Builds a partition's cells anew and puts every memory of it in one, in one transaction; false
   * when another sweeper changed its cells since `build.cellsFor` was read (nothing is changed).
   */
  buildCells(scope: Scope, kind: string, build: CellBuild): Promise<boolean>;
  /** Removes a partition's cells, unless they changed since `cellsFor` was read; true when removed. */
  dropCells(scope: Scope, kind: string, cellsFor: number): Promise<boolean>;
  /** Puts one bounded batch of a partition's memories that have no cell yet in their nearest cell. */
  assignCells(scope: Scope, kind: string, batch: number): Promise<number>;
  /** Makes each of a partition's centroids the mean of what its cell holds now; empty cells go. */
  refreshCells(scope: Scope, kind: string): Promise<void>;
}
