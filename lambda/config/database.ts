/**
 * What the environment may say about the database, stated here so that reading it loads no driver,
 * migration runner or PGlite (none has a place in a function's bundle, and config/ depends on no
 * adapter): the engines, a multi-region database's regions, and the bounds of the numbers a setting
 * may give. The pg adapter takes them from here.
 */

/** The SQL engines naaba runs on. Runtime SQL is the subset both accept; DDL is per engine. */
export type SqlEngine = 'postgres' | 'cockroach';

/** The regions of a multi-region CockroachDB database: rows live in one of these. */
export interface DatabaseRegions {
  readonly primary: string;
  readonly others: readonly string[];
}

/**
 * PostgreSQL's shared buffers for PGlite in a data folder (NAABA_PGLITE_BUFFERS_MB).
 *
 * The local server and `naaba serve` keep their database in a data folder, where PGlite's default is
 * 128 MB. A recall at 50,000 memories in one partition reads its nearest cells' 2,000 memories
 * (`FUSION.cellRows`) by their index, scattered over the heap; at 128 MB those pages kept falling
 * out, and each miss is a read from the file. Hybrid p50 at 50,000 over p50 at 500 (`npm run
 * bench:partition -- --engine pglite`) was 2.53–2.63 at 128 MB, 2.08–2.11 at 256 MB and 2.09–2.13 at
 * 512 MB. The buffers are resident from the moment the database opens: an idle server holds about
 * 150 MB more than at the default with 256 MB, 390 MB more with 512 MB (decision 0123). A smaller
 * machine can lower it; a database in memory (the tests) keeps PGlite's default.
 */
export const PGLITE_BUFFERS_MB = { default: 256, min: 16, max: 1024 } as const;

/**
 * Buckets of a hash-sharded index unless NAABA_HASH_BUCKETS says otherwise: CockroachDB's own default,
 * which the indexes of clusters migrated before it was configurable have (docs/deployment.md).
 */
export const DEFAULT_HASH_BUCKETS = 16;

/** The bucket counts CockroachDB accepts (engine-facts §8.1). */
export const HASH_BUCKETS = { min: 2, max: 2048 } as const;
