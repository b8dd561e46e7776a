import type { Scope } from '../memory/model.js';

/**
 * What the sweeper needs, region by region in bounded batches: expired memories out (journaled),
 * the journal trimmed, the expiry index kept, empty term statistics cleared, and the vector arm's
 * cells of large partitions kept (decision 0083; none on an engine whose vector index reads by
 * prefix).
 */
/** One batch of the superseded sweep: memories deleted, and memories that only left the walk (pinned, or current again). */
export interface SweptSuperseded {
  readonly deleted: number;
  readonly settled: number;
}

export interface MaintenanceStore {
  /** Deletes one bounded batch of a region's expired memories of one kind, journaling each (rule `expiry`). */
  sweepExpired(region: string, kind: string, expiredBefore: Date, batch: number, now: Date): Promise<number>;
  /**
   * Deletes one bounded batch of a region's superseded memories of one kind superseded before the
   * cutoff (their grace period is over), journaling each (rule `superseded`); a picked memory that
   * is pinned or current again only leaves the walk. Returns how many were deleted.
   */
  sweepSuperseded(region: string, kind: string, supersededBefore: Date, batch: number, now: Date): Promise<SweptSuperseded>;
  /** Deletes one bounded batch of a region's journal lines older than the cutoff. */
  trimJournal(region: string, olderThan: Date, batch: number): Promise<number>;
  /**
   * One bounded step of putting a kind's unpinned memories into the expiry index (a kind that gained
   * a TTL), going on from where the last step stopped; returns how many memories the step covered,
   * fewer than `batch` once every memory of the region has been.
   */
  markExpiring(region: string, kind: string, batch: number): Promise<number>;
  /** The kinds whose memories of a region are all in the expiry index, as last recorded. */
  expiringKinds(region: string): Promise<string[]>;
  /** Records the kinds whose memories of a region are all in the expiry index. */
  recordExpiringKinds(region: string, kinds: readonly string[]): Promise<void>;
  /** Clears one bounded batch of a region's term statistics that came down to zero. */
  clearEmptyTerms(region: string, batch: number): Promise<number>;
  /**
   * Ranks one bounded batch of a region's terms whose flagged postings may miss some of their best
   * (decision 0101), each term its own statement; returns how many were ranked.
   */
  rankPostings(region: string, batch: number): Promise<number>;
  /**
   * One page of the walk that gives postings stored without a passage mask theirs (decision
   * 0119): the region's next `batch` memories in id order from where the walk stopped, with the
   * content of those longer than one passage whose postings have no mask yet. A page of a walk
   * that already reached the end is empty and `finished`.
   */
  passagesPage(region: string, batch: number): Promise<PassagesPage>;
  /**
   * Writes a page's masks to the postings still without one (and of the length they were cut
   * from), and records where the walk stands: past the page, or at the end when the page was
   * short. Returns how many postings it wrote.
   */
  writePassages(region: string, page: PassagesPage, cut: readonly PassageMasks[]): Promise<number>;
  /**
   * One page of a region's partitions marked for cells, after `after` in (user, kind) order: every
   * partition that has cells, and every one whose count reached the store's size for cells since it
   * was last unmarked (decision 0118); the sweeper decides what each needs. None on an engine whose
   * vector index already reads by prefix.
   */
  cellPartitions(region: string, batch: number, after?: CellPartition): Promise<CellPartition[]>;
  /** Unmarks a partition that has no cells and holds fewer than `from` memories; true when unmarked. */
  unmarkCells(scope: Scope, kind: string, from: number): Promise<boolean>;
  /**
   * Builds a partition's cells anew and puts every memory of it in one, in statements of about
   * `build.rowsPerStep` memories each; false when another sweeper recorded a build since
   * `build.cellsFor` was read.
   */
  buildCells(scope: Scope, kind: string, build: CellBuild): Promise<boolean>;
  /** Removes a partition's cells, unless they changed since `cellsFor` was read; true when removed. */
  dropCells(scope: Scope, kind: string, cellsFor: number): Promise<boolean>;
  /** Puts one bounded batch of a partition's memories that have no cell yet in their nearest cell. */
  assignCells(scope: Scope, kind: string, batch: number): Promise<number>;
  /** Makes each of a partition's centroids the mean of what its cell holds now, a few cells per statement; empty cells go. */
  refreshCells(scope: Scope, kind: string, step: CellStep): Promise<void>;
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

/** How much of a partition one statement of the sweeper's work on its cells reads. */
export interface CellStep {
  /** Memories per statement, about. */
  readonly rowsPerStep: number;
  /** The partition's size now. */
  readonly memories: number;
}

/** What a build of a partition's cells is given: how many, how refined, and what the sweeper saw. */
export interface CellBuild extends CellStep {
  readonly cells: number;
  readonly rounds: number;
  /** The size its cells were for when the sweeper looked (null: none); a build finding otherwise does nothing. */
  readonly cellsFor: number | null;
}

/** One page of the passages walk (decision 0119). */
export interface PassagesPage {
  /** Memories the page walked. */
  readonly walked: number;
  /** The last memory id walked; undefined when the page is empty. */
  readonly last?: string;
  /** True when the page holds the last of the region's memories (fewer than asked for). */
  readonly end: boolean;
  /** True when the walk had already reached the end of the region: nothing to write or record. */
  readonly finished: boolean;
  /** The memories of the page longer than one passage whose postings have no mask, with their content. */
  readonly long: readonly { readonly userId: string; readonly kind: string; readonly id: string; readonly content: string }[];
}

/** One memory's passage masks, as the analyzer cut them. */
export interface PassageMasks {
  readonly userId: string;
  readonly kind: string;
  readonly id: string;
  /** Its length in terms as the analyzer counts it: a posting of another length was written from other content. */
  readonly length: number;
  /** Each term's mask (LexicalAnalyzer.passages). */
  readonly masks: ReadonlyMap<string, number>;
}
