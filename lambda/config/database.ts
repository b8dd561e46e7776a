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
 * PostgreSQL's shared buffers for PGlite in a data folder: what NAABA_PGLITE_BUFFERS_MB may set, and
 * the bounds of the size chosen from the folder's data when it is not set (`buffersForData`).
 *
 * The buffers are resident from the moment the database opens. A recall at 50,000 memories in one
 * partition reads its nearest cells' 2,000 memories (`FUSION.cellRows`) by their index, scattered
 * over a table larger than 128 MB; hybrid p50 at 50,000 over p50 at 500 (`npm run bench:partition
 * -- --engine pglite`) was 2.53–2.63 at 128 MB, 2.08–2.11 at 256 MB and 2.09–2.13 at 512 MB
 * (decision 0123). An empty folder needs none of that: 256 MB held an idle server at 600 MiB and
 * more (decision 0155). A database in memory (the tests) keeps PGlite's default.
 */
export const PGLITE_BUFFERS_MB = { min: 16, max: 1024, sized: { least: 16, most: 256 } } as const;

/**
 * The shared buffers for a database whose files hold `dataBytes`: the smallest power of two of
 * megabytes that holds them all, within `PGLITE_BUFFERS_MB.sized` (decision 0155). A folder of
 * 50,000 memories is past 128 MB and gets the 256 MB decision 0123 measured as needed.
 */
export function buffersForData(dataBytes: number): number {
  const { least, most } = PGLITE_BUFFERS_MB.sized;
  let mb: number = least;
  while (mb < most && mb * MIB < dataBytes) mb *= 2;
  return mb;
}

const MIB = 1024 * 1024;

/**
 * Buckets of a hash-sharded index unless NAABA_HASH_BUCKETS says otherwise: CockroachDB's own default,
 * which the indexes of clusters migrated before it was configurable have (docs/deployment.md).
 */
export const DEFAULT_HASH_BUCKETS = 16;

/** The bucket counts CockroachDB accepts (engine-facts §8.1). */
export const HASH_BUCKETS = { min: 2, max: 2048 } as const;
