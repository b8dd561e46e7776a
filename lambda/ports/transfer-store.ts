import type { JournalLine, Scope, Source } from '../memory/model.js';
import type { KindCutoff } from '../memory/policy/expiry.js';

/**
 * What moving memories in at once needs: an import of an export file, step by step, and a load
 * of many memories of one partition known to fit (benchmarks, seeds). An export reads through the
 * page's listing and the journal.
 */
export interface TransferStore {
  /** Writes one step of an import all at once, or nothing when a ceiling or the pin limit would be passed. */
  importMemories(plan: ImportPlan): Promise<ImportResult>;
  /** Writes many memories of one partition at once, with their postings and statistics; returns how many. */
  load(plan: LoadPlan): Promise<number>;
}

/** One memory as an import writes it: everything it had where it came from, under a new id. */
export interface ImportedMemory {
  readonly id: string;
  readonly kind: string;
  readonly content: string;
  readonly fingerprint: string;
  readonly embedding: readonly number[];
  readonly frequencies: ReadonlyMap<string, number>;
  /** The passages each term occurs in, as masks (LexicalAnalyzer.passages); absent: one passage each. */
  readonly passages?: ReadonlyMap<string, number>;
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

/** An imported memory (`older`) that another (`newer`) replaced at `at`, by their imported ids. */
export interface ImportedSupersession {
  readonly older: string;
  readonly newer: string;
  readonly at: Date;
}

/** An import of one user's memories and journal lines, written all at once or not at all. */
export interface ImportPlan {
  readonly scope: Scope;
  /** Every kind the memories and lines name, with its ceiling and expiry cutoff. */
  readonly kinds: readonly (KindCutoff & { readonly ceiling: number })[];
  readonly pinLimit: number;
  readonly memories: readonly ImportedMemory[];
  /** Conflict links between the imported memories' ids, each direction given. */
  readonly links: readonly (readonly [string, string])[];
  /**
   * Which imported memory replaced which, and when (policy/supersession.ts): written on memories
   * already there when the step begins (an import's last step, as its links); absent: none.
   */
  readonly supersessions?: readonly ImportedSupersession[];
  readonly journal: readonly JournalLine[];
  /**
   * False: write no memory — only check that the fresh ones would fit (an import's first step) or
   * write links and journal lines between memories already there (its last). True when absent.
   */
  readonly writeMemories?: boolean;
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
    /** The passages each term occurs in, as masks (LexicalAnalyzer.passages); absent: one passage each. */
    readonly passages?: ReadonlyMap<string, number>;
  }[];
}
