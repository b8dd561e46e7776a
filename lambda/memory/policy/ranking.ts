/**
 * The cells a vector arm reads when it runs alone (a query without terms, or the `vector`
 * ranking): every one (decision 0125). Alone, it decides the answer, and reading the cells nearest
 * the query agreed with an exact search on only 68 % of the top 10 at 50,000 memories in a
 * partition (issue 47); with terms the lexical arm finds what the cells miss (97.6 %), and the
 * cells' bound stays.
 */
export const ALL_CELLS = 2_000_000_000;

/**
 * How recall fuses its two arms (reciprocal rank fusion): each arm ranks up to `depth` memories,
 * and a memory scores Σ weight / (k + rank) over the arms that found it. Tuned on the LoCoMo
 * development split only (`npm run bench:locomo -- --split dev`; docs/decisions/0038): the
 * lexical arm is the stronger offline, so it weighs double; a small k lets a first rank count.
 * Then each hit brings the `following` memories written after it with the same origin (same user
 * and kind), each scored at `followingShare` of the hit's score (decision 0081): an answer often
 * sits in what came right after the memory that shares the question's words. They are the first
 * live ones among the `followingReach` places after the hit's in its origin, each read by key
 * (decision 0082), so a hit costs a few point reads however long its origin. `following` 0 turns
 * this off (the arms alone, for evaluation). They take at most `followerPlaces` of a recall's places
 * (policy/recency.ts, decision 0113), and of two found memories of at most `statementTerms` terms on
 * the same subject, the newer ranks first when its own score is at least `newerReach` of the
 * older's and its lexical score at least `newerWords` of the older's (the same; decision 0124). On PostgreSQL and PGlite, the vector arm of a
 * partition that has cells ({@link VECTOR_CELLS}) reads its cells nearest the query until it has
 * read about `cellRows` memories (at most twice that), and every memory not yet in a cell, whatever
 * the partition's size (decision 0100), and the lexical arm's candidates wherever their cell
 * (decision 0105: what shares the query's words keeps its vector rank); a number past the
 * partition's size reads every cell, the exact arm.
 */
export const FUSION = {
  depth: 50,
  k: 10,
  vectorWeight: 0.5,
  lexicalWeight: 1,
  following: 2,
  followingShare: 0.6,
  followingReach: 4,
  followerPlaces: 0.4,
  statementTerms: 50,
  newerReach: 0.5,
  newerWords: 0.9,
  cellRows: 2000,
} as const;

export type Fusion = { readonly [K in keyof typeof FUSION]: number };

/**
 * When a partition's vectors are split into cells, on PostgreSQL and PGlite, whose vector arm is
 * otherwise exact over the partition (decision 0083): the sweeper builds about √n cells (k-means,
 * `rounds` refinements) for a partition of at least `from` memories, and builds them again when the
 * partition has doubled or halved since. A recall then reads the nearest cells up to
 * `FUSION.cellRows` memories instead of all of them: about a third of a 5,000-memory partition,
 * where reading a third of the cells kept hybrid recall_all@10 within 0.2 point of the exact arm's
 * on dev (`npm run tune:cells`), and the same number of memories at 50,000 (decision 0100). Every
 * statement of a build or a refresh reads about `rowsPerStep` memories, so that none holds PGlite's
 * one session or a PostgreSQL row lock for long (decision 0100). The default ceilings keep every partition below `from`: cells are for
 * deployments that raise them. CockroachDB's vector index already reads a partition by its prefix.
 */
export const VECTOR_CELLS = {
  from: 2000,
  rounds: 4,
  rowsPerStep: 100,
} as const;

/**
 * How the lexical arm scores (BM25 over the caller's partitions): `k1` saturates a term's
 * frequency, `b` normalises by length, each scaled by a share of the partitions' average memory
 * length in terms (from their kept statistics): nothing up to `shortLength`, then
 * excess / (excess + `halfLength`). Memories of about one chat turn (35 terms) are scored by
 * which terms they hold, as before; long ones (notes, summaries, pasted pages) approach plain
 * BM25 (decision 0057). A term is very common when its document frequency exceeds both
 * `commonDf` and `commonShare` of the partition; very common terms are not scored (decision 0056).
 * Of every other term, at most `postingsPerTerm` postings per partition are read, those with the
 * most occurrences in the shortest memories first: the arm's cost stays bounded as a partition
 * grows (decision 0078). Up to that document frequency, the arm is exact BM25. With terms in the
 * query, the vector arm's weight is scaled by 1 − `vectorFade` × the same length share: the offline
 * embedder hashes a long text's hundreds of words into few dimensions, so on long memories its
 * ranks say less than the lexical arm's (decision 0109). What follows a hit fades the same way, its
 * share scaled by 1 − `followingFade` × the length share: an answer sits in the next chat turn, but a
 * long memory carries its own answer, and its neighbours pushed direct hits out (decision 0120).
 */
export const LEXICAL = {
  k1: 1.2,
  b: 1,
  shortLength: 50,
  halfLength: 25,
  commonDf: 100,
  commonShare: 0.2,
  postingsPerTerm: 150,
  vectorFade: 1,
  followingFade: 1,
} as const;

export type LexicalScoring = { readonly [K in keyof typeof LEXICAL]: number };

/**
 * The bound under the depth on every engine (decision 0101): of each term of a partition, at most
 * `flagged` postings are flagged, the best ones (the order `postingsPerTerm` reads them in), and
 * recall reads a term in more than `postingsPerTerm` memories from its flagged postings only, so
 * no plan can read more of it than `flagged`. Writes flag a posting that beats the last flagged
 * one while fewer than `flagged` are; the sweeper ranks a term whose flagged set may miss some of
 * its best `postingsPerTerm` again, flagging its best `ranked`: room for `ranked − postingsPerTerm`
 * deletions of flagged postings and `flagged − ranked` better new ones before it is due again.
 */
export const POSTING_CUT = {
  ranked: 175,
  flagged: 200,
} as const;

/**
 * The saturation, length normalisation, the vector arm's scale and the following memories' scale in
 * force for partitions whose memories average `average` terms (as recall-arms.ts).
 */
export function lengthScaled(
  scoring: LexicalScoring,
  average: number,
): { k1: number; b: number; vectorScale: number; followingScale: number } {
  const excess = Math.max(average - scoring.shortLength, 0);
  const share = excess / Math.max(excess + scoring.halfLength, 1);
  return {
    k1: scoring.k1 * share,
    b: scoring.b * share,
    vectorScale: 1 - scoring.vectorFade * share,
    followingScale: 1 - scoring.followingFade * share,
  };
}

/**
 * The grain at which the lexical arm's scores are ranked: two memories whose scores differ by less
 * are ranked by id. The same sum of BM25 parts added in another order (float8 in SQL, doubles in
 * the reference store) differs in its last bits, and without a grain that flipped the ranks of
 * two memories that answer the query alike (issue 47's differential test found it).
 */
export const SCORE_GRAIN = 1e-9;

/** A lexical score as it is ranked: a whole number of grains. */
export const grained = (score: number): number => Math.floor(score / SCORE_GRAIN);

/**
 * Which arms recall runs: both with the memories that follow the hits (the default), or one arm
 * alone, for evaluation and diagnosis; or both without the relevance floor (decision 0058), or
 * without the following memories (decision 0081), to measure what each adds.
 */
export const RECALL_RANKINGS = ['hybrid', 'vector', 'lexical', 'hybrid-no-floor', 'hybrid-no-following'] as const;
export type RecallRanking = (typeof RECALL_RANKINGS)[number];

/** What a ranking turns on: the vector arm's weight, the relevance floor, and the memories that follow the hits. */
export function rankingParts(
  ranking: RecallRanking,
  fusion: Fusion,
  hasTerms: boolean,
): { vectorWeight: number; floored: boolean; following: number } {
  return {
    // The lexical arm alone: the vector arm still runs, weighing nothing, unless the query has no terms.
    vectorWeight: ranking === 'lexical' && hasTerms ? 0 : fusion.vectorWeight,
    // The relevance floor needs the lexical arm's verdict; the vector arm alone (evaluation) has none.
    floored: ranking === 'hybrid' || ranking === 'lexical' || ranking === 'hybrid-no-following',
    // What follows a hit comes with the fused ranking only, not with an arm measured alone.
    following: ranking === 'hybrid' || ranking === 'hybrid-no-floor' ? fusion.following : 0,
  };
}
