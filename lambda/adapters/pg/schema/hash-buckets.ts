/**
 * The bucket count of CockroachDB's hash-sharded indexes, on its own so that the configuration can
 * read it without loading the migration runner (which locates sql/ on disk and has no place in a
 * function's bundle).
 */

/**
 * Buckets of a hash-sharded index unless NAABA_HASH_BUCKETS says otherwise: CockroachDB's own default,
 * which the indexes of clusters migrated before it was configurable have (docs/deployment.md).
 */
export const DEFAULT_HASH_BUCKETS = 16;

/** The bucket counts CockroachDB accepts (engine-facts §8.1). */
export const HASH_BUCKETS = { min: 2, max: 2048 } as const;
