import type { JournalLine, RecalledMemory, Scope, Source } from '../memory/model.js';
import type { ExpiryCutoff, KindCutoff } from '../memory/policy/expiry.js';
import type { PinChange } from '../memory/policy/pins.js';
import type { Fusion, LexicalScoring } from '../memory/policy/ranking.js';

export type { Scope } from '../memory/model.js';

/**
 * What the four MCP tools need of storage: the duplicate check and the write of a remember
 * (insert with eviction and expiry, or merge), recall, forget, and curation_state's counts and
 * journal. Every method is one atomic round trip. The rules each write applies are stated in
 * lambda/memory/policy/; a store renders or implements them, never decides them.
 */
export interface CurationStore {
  /** The nearest live memory of the same kind and any exact restatement of it. */
  neighbours(query: NeighbourQuery): Promise<Neighbours>;
  /** Removes the expired memories of one (user, kind), journaling each (rule `expiry`); returns how many. */
  expirePartition(scope: Scope, kind: string, expiredBefore: Date, now: Date): Promise<number>;
  /** Stores a new memory, links a conflict and evicts past the ceiling, journaling each eviction. */
  insert(plan: InsertPlan, now: Date): Promise<InsertResult>;
  /** Absorbs a restatement into an existing memory and journals the merge. */
  merge(plan: MergePlan, now: Date): Promise<MergeResult>;
  /**
   * The best live memories first (fused vector and lexical ranks; superseded ones, when asked for,
   * after every current one); marks the returned ones useful. Recency is not applied here: the
   * service orders the answer (policy/recency.ts) from what each ranked memory carries.
   */
  recall(query: RecallQuery): Promise<RankedMemory[]>;
  /** Deletes the caller's live memories among `ids`; returns the ids actually deleted. */
  forgetIds(scope: Scope, ids: readonly string[], expiry: readonly ExpiryCutoff[]): Promise<string[]>;
  /** Deletes all the caller's memories (of one kind, or all) and the matching journal lines; counts the live ones. */
  forgetAll(scope: Scope, kind: string | undefined, expiry: readonly ExpiryCutoff[]): Promise<Forgotten>;
  /** Live memories per kind, and how many of them are pinned. */
  counts(scope: Scope, expiry: readonly ExpiryCutoff[]): Promise<MemoryCounts>;
  /** The journal, newest first, one page after `cursor`. */
  journal(scope: Scope, pageSize: number, cursor: string | undefined): Promise<JournalPage>;
}

/** The duplicate check's read: one partition, the new memory's vector and fingerprint. */
export interface NeighbourQuery {
  readonly scope: Scope;
  readonly kind: string;
  readonly embedding: readonly number[];
  readonly fingerprint: string;
  /** The kind's cutoff; null without a TTL. */
  readonly expiredBefore: Date | null;
  /** Rows asked of the vector search so that expired ones cannot hide the nearest live one. */
  readonly candidates: number;
  /** How many of the nearest current memories to return for the judge (policy/supersession.ts); 1 when absent. */
  readonly judged?: number;
  /** The new memory's terms (LexicalAnalyzer.terms): `byWords` is found by the rarest of them the partition holds; none: no `byWords`. */
  readonly terms?: readonly string[];
}

/** A memory the judge may be asked about: one of the nearest current ones of the kind. */
export interface Neighbour {
  readonly id: string;
  readonly content: string;
  readonly distance: number;
}

/** The nearest current (live, not superseded) neighbours and the exact restatement (same fingerprint) of a new memory, if any. */
export interface Neighbours {
  /** The nearest of `candidates`. */
  readonly nearest: Neighbour | undefined;
  /** Up to `judged` nearest current memories, nearest first. */
  readonly candidates: readonly Neighbour[];
  /**
   * Among the current memories holding the rarest of `terms` that the partition holds (fewest
   * memories, then by term; its best `WORDS_READ` holders read: most occurrences of it, then the
   * shortest, then by id), the nearest: the one that
   * shares the new memory's subject (policy/supersession.ts).
   */
  readonly byWords: Neighbour | undefined;
  /** `live` false: the restatement's memory has expired and awaits removal; it must not absorb anything. */
  readonly exact: { readonly id: string; readonly live: boolean } | undefined;
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
  /** The passages each term occurs in, in the same order, as masks (LexicalAnalyzer.passages); one passage each when absent. */
  readonly passages?: readonly number[];
  readonly pinned: boolean;
  readonly source: Source;
  /**
   * The memory the judge said this one contradicts: this one supersedes it (policy/supersession.ts),
   * both get linked, and this write's ceiling spares it.
   */
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

export interface MergePlan {
  readonly scope: Scope;
  readonly targetId: string;
  readonly kind: string;
  readonly pin: PinChange;
  readonly source: Source;
  readonly pinLimit: number;
  readonly sourcesKept: number;
  /** The kind's expiry cutoff (null without a TTL): an expired target counts as gone. */
  readonly expiredBefore: Date | null;
}

export type MergeResult =
  /** `supersedes`: the target was superseded, and now replaces the memory that had replaced it (said again, it is current). */
  | { readonly status: 'merged'; readonly id: string; readonly supersedes?: string }
  | { readonly status: 'pin_limit' }
  /** The target disappeared (forgotten, evicted or expired) between the read and the write. */
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
   * The relevance floor (policy/floor.ts): a memory the lexical arm did not find is ranked only
   * within this cosine distance of the query; `NO_FLOOR` keeps every neighbour.
   */
  readonly farthest: number;
  /**
   * Two memories found within this cosine distance of each other are on the same subject
   * (`RankedMemory.sameSubject`, read by policy/recency.ts); absent: none are (recency orders nothing).
   */
  readonly sameSubject?: number;
  /** Kinds searched, each with the instant before which its non-pinned memories count as expired. */
  readonly kinds: readonly KindCutoff[];
  readonly limit: number;
  /** Rows asked of the vector search so that expiry checks on the returned rows cannot starve the result. */
  readonly candidates: number;
  /** Also return superseded memories, each ranked after every current one (policy/supersession.ts). */
  readonly includeSuperseded?: boolean;
  readonly now: Date;
}

/** A memory recall ranked, with what the newer-first rule reads of it (policy/recency.ts). */
export interface RankedMemory extends RecalledMemory {
  /** Its length in terms. */
  readonly length: number;
  /** Its lexical arm's score for the query; 0 when that arm did not score it or did not run. */
  readonly words: number;
  /** The other ranked memories of its kind whose vectors lie within `sameSubject` of its own, sorted. */
  readonly sameSubject: readonly string[];
}

/** What `forget all` removed: live memories, and journal lines. */
export interface Forgotten {
  readonly memories: number;
  readonly journalLines: number;
}

/** Live memories per kind, pinned ones among them, and pins in all. */
export interface MemoryCounts {
  readonly perKind: Record<string, number>;
  readonly pinned: number;
  readonly pinnedPerKind: Record<string, number>;
}

export interface JournalPage {
  readonly lines: readonly JournalLine[];
  readonly nextCursor: string | undefined;
}
