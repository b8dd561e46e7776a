import type { JudgeStatus } from './judge-health.js';
import type { CurationRules, JudgeOutcome } from './model.js';
import type { JournalPage, MemoryFilters, MemoryOrder } from '../ports/memory-store.js';

export interface RememberInput {
  readonly content: string;
  readonly kind: string;
  readonly pinned?: boolean;
  readonly origin?: string;
}

export interface RememberResult {
  readonly id: string;
  readonly kind: string;
  readonly outcome: 'stored' | 'merged' | 'conflict';
  /** On `merged`: the existing memory that absorbed this restatement. */
  readonly mergedInto?: string;
  /** On `conflict`: the memory the judge said this one contradicts. */
  readonly conflictsWith?: string;
  /** Memories evicted to keep the kind under its ceiling. */
  readonly evicted: number;
  /** How the duplicate check decided: exact restatement, the judge's answer, or no neighbour to ask about. */
  readonly judge: JudgeOutcome | 'exact' | 'not_asked';
}

export interface RecallInput {
  readonly query: string;
  readonly kinds?: readonly string[];
  readonly limit?: number;
}

export type ForgetInput = { readonly ids: readonly string[] } | { readonly all: true; readonly kind?: string };

export interface ForgetResult {
  readonly deleted: readonly string[];
  readonly count: number;
  readonly journalLinesRemoved: number;
}

export interface CurationState {
  readonly rules: CurationRules;
  readonly judge: JudgeStatus;
  readonly embedder: string;
  readonly counts: { readonly perKind: Record<string, number>; readonly pinned: number };
  readonly journal: JournalPage;
}

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
}

/** Automatic deletions of one UTC day, per rule. */
export interface JournalDay {
  readonly day: string;
  readonly ceiling: number;
  readonly expiry: number;
  readonly duplicate: number;
}

/** What one kind will lose next: by the ceiling (least recently useful) and, with a TTL, by expiry. */
export interface KindOutlook {
  readonly kind: string;
  readonly ceiling: number;
  readonly count: number;
  readonly evictNext: readonly { id: string; content: string; lastUsefulAt: Date; recallCount: number }[];
  readonly expiringNext: readonly { id: string; content: string; expiresAt: Date }[];
}
