/**
 * How recall fuses its two arms (reciprocal rank fusion): each arm ranks up to `depth` memories,
 * and a memory scores Σ weight / (k + rank) over the arms that found it. Tuned on the LoCoMo
 * development split only (`npm run bench:locomo -- --split dev`; docs/decisions/0038): the
 * lexical arm is the stronger offline, so it weighs double; a small k lets a first rank count.
 */
export const FUSION = { depth: 50, k: 10, vectorWeight: 0.5, lexicalWeight: 1 } as const;

export type Fusion = { readonly [K in keyof typeof FUSION]: number };

/**
 * How the lexical arm scores (BM25 over the caller's partitions): `k1` saturates a term's
 * frequency, `b` normalises by length (k1 0: a term's presence counts, not how often it occurs);
 * a term is very common when its document frequency exceeds both `commonDf` and `commonShare` of
 * the partition, and then it only adds to memories a rarer term found (decision 0056).
 */
export const LEXICAL = { k1: 0, b: 0, commonDf: 100, commonShare: 0.2 } as const;

export type LexicalScoring = { readonly [K in keyof typeof LEXICAL]: number };

/** Which arms recall runs: both (the default), or one alone, for evaluation and diagnosis. */
export const RECALL_RANKINGS = ['hybrid', 'vector', 'lexical'] as const;
export type RecallRanking = (typeof RECALL_RANKINGS)[number];
