import type { Embedder } from '../ports/embedder.js';
import type { RankedMemory, RecallQuery } from '../ports/curation-store.js';
import { embedChecked } from './embedding.js';
import { InvalidInputError } from './errors.js';
import type { LexicalAnalyzer } from './lexical.js';
import { checkText, LIMITS } from './limits.js';
import type { CurationRules, RecalledMemory, Scope } from './model.js';
import { kindCutoffs, recallCandidates } from './policy/expiry.js';
import { farthestRelated } from './policy/floor.js';
import { namesFirst } from './policy/names-first.js';
import { newestFirst, sameSubjectWithin } from './policy/recency.js';
import { kindsOf } from './policy/kinds.js';
import {
  ALL_CELLS,
  type Fusion,
  FUSION,
  LEXICAL,
  type LexicalScoring,
  type RecallRanking,
  rankingParts,
} from './policy/ranking.js';

/** What a recall asks: words, the kinds to search (all by default) and how many. */
export interface RecallInput {
  readonly query: string;
  readonly kinds?: readonly string[];
  readonly limit?: number;
  /** Also return memories a newer one superseded (policy/supersession.ts), after the current ones. */
  readonly includeSuperseded?: boolean;
}

export interface RecallPlannerDeps {
  readonly embedder: Embedder;
  readonly rules: CurationRules;
  readonly analyzer: LexicalAnalyzer;
  /** Which recall arms run; hybrid unless configured otherwise (NAABA_RECALL_RANKING). */
  readonly ranking?: RecallRanking;
  /** How recall scores, when not the tuned defaults of policy/ranking.ts: for the tuning harness. */
  readonly scoring?: { readonly fusion: Fusion; readonly lexical: LexicalScoring };
}

/**
 * Turns a recall (the tool's, or the page's search) into the store's query: the input checked,
 * one embedding, the configured arms, each kind's cutoff, and the relevance floor.
 */
export class RecallPlanner {
  constructor(private readonly deps: RecallPlannerDeps) {}

  async plan(scope: Scope, input: RecallInput, now: Date): Promise<RecallQuery> {
    checkText('query', input.query, { bytes: LIMITS.queryBytes });
    const kinds = input.kinds && input.kinds.length > 0 ? [...new Set(input.kinds)] : kindsOf(this.deps.rules);
    const limit = input.limit ?? LIMITS.recallDefault;
    if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.recallMax) {
      throw new InvalidInputError(`limit must be an integer from 1 to ${LIMITS.recallMax}`);
    }
    const searched = kindCutoffs(this.deps.rules, kinds, now);
    const embedding = await embedChecked(this.deps.embedder, input.query);
    const fusion = this.deps.scoring?.fusion ?? FUSION;
    const depth = Math.max(limit, fusion.depth);
    const ranking = this.deps.ranking ?? 'hybrid';
    const terms = ranking === 'vector' ? [] : this.deps.analyzer.queryTerms(input.query);
    const { vectorWeight, floored, following } = rankingParts(ranking, fusion, terms.length > 0);
    return {
      scope,
      embedding,
      terms,
      // The vector arm alone decides the answer: it reads every cell, exact (decision 0125).
      fusion: { ...fusion, depth, vectorWeight, following, cellRows: terms.length > 0 ? fusion.cellRows : ALL_CELLS },
      lexical: this.deps.scoring?.lexical ?? LEXICAL,
      farthest: farthestRelated(this.deps.embedder.unrelatedBeyond, floored),
      sameSubject: sameSubjectWithin(this.deps.embedder.unrelatedBeyond),
      kinds: searched,
      limit,
      candidates: recallCandidates(this.deps.rules, kinds, depth),
      includeSuperseded: input.includeSuperseded ?? false,
      now,
    };
  }

  /**
   * The store's ranked memories in the order recall answers them: the newer on a subject first
   * where the query cannot tell the two apart (policy/recency.ts), then the one memory holding the
   * query's names first (policy/names-first.ts), superseded ones last.
   */
  answer(input: RecallInput, ranked: readonly RankedMemory[]): RecalledMemory[] {
    const fusion = this.deps.scoring?.fusion ?? FUSION;
    const query = { text: input.query, analyzer: this.deps.analyzer };
    return namesFirst(newestFirst(ranked, query, fusion), query).map(
      ({ length: _length, words: _words, sameSubject: _same, ...memory }) => memory,
    );
  }
}
