import type { Scope } from '../../../../memory/model.js';
import type { KindCutoff } from '../../../../memory/policy/expiry.js';
import type { LexicalScoring } from '../../../../memory/policy/ranking.js';

/** What the recall statement (recall.ts) and its parts (recall-arms.ts) are rendered from. */
export interface RecallInputs {
  readonly scope: Scope;
  /** The query's vector, as its literal: the vector arm's query, and every answer's distance. */
  readonly embedding: string;
  /** The query's lexical terms, checked; none: the vector arm runs alone. */
  readonly terms: readonly string[];
  /** The kinds searched, each with its cutoff. */
  readonly kinds: readonly KindCutoff[];
  /** Rows asked of each arm's read so that expiry checks on the returned rows cannot starve the result. */
  readonly candidates: number;
  /** How many each arm ranks. */
  readonly depth: number;
  readonly limit: number;
  readonly now: Date;
  readonly fusion: {
    readonly k: number;
    readonly vectorWeight: number;
    readonly lexicalWeight: number;
    /** The relevance floor: what only the vector arm found counts within this distance (policy/floor.ts). */
    readonly farthest: number;
    readonly following: number;
    readonly followingShare: number;
    /** Places read after each hit; 0 when nothing follows. */
    readonly followingReach: number;
    readonly cellRows: number;
    /** The share of the `limit` places (rounded down) that may go to what follows a hit without being ranked (policy/recency.ts). */
    readonly followerPlaces: number;
  };
  /** Two memories found within this cosine distance of each other are on the same subject (policy/recency.ts); absent (null): none are. */
  readonly sameSubject?: number;
  readonly lexical: LexicalScoring;
  /** Whether the returned memories become useful (recall) or not (the page's search: looking is not recalling). */
  readonly touch: boolean;
  /** Also rank superseded memories, each after every current one; absent: leave them out. */
  readonly includeSuperseded?: boolean;
}
