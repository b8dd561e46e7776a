import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface WritePassagesInputs {
  readonly region: string;
  /** The memory whose postings get their masks, by its partition and id. */
  readonly userId: string;
  readonly kind: string;
  readonly memoryId: string;
  /** Its terms, and each one's mask (LexicalAnalyzer.passages) as a JSON object of term → mask. */
  readonly terms: readonly string[];
  readonly masks: string;
  /** Its length in terms as the analyzer counted it when it cut the masks. */
  readonly length: number;
  /**
   * Where the walk stands after this page: the last id walked, or the all-ones id once it reached
   * the end; null for a page's statements before its last, which record nothing.
   */
  readonly walked: string | null;
}

/**
 * One memory's postings of the passages walk written (decision 0119): each posting without a mask
 * gets the one the analyzer cut from the memory, read by its whole key under the memory's
 * partition, and with the page's last statement the walk's place in the region is recorded, in the
 * region's own row of `sweeper_state` (never a GLOBAL row, decision 0151), so a stop never skips a page. Only a posting still without a mask and of the length the mask was cut
 * from is written: a remember, import or `naaba reembed` that wrote the posting meanwhile wrote its
 * own mask, which stands, and running a page twice writes nothing the second time. One memory per
 * statement, its terms as an array and their masks as an object: every column of the key is in the
 * index condition (the terms by `= ANY`) and each posting finds its mask by its term, with no join,
 * so the plan reads the memory's postings only, however stale the statistics of `passages` are.
 * Joined over a page's many partitions, PGlite planned a read of the region per posting and held
 * one statement 64 s; joined to an `unnest` of the memory's terms, a rescan of them per posting
 * (615–779 ms once at 400 terms). The length is compared as `dl + 0`, which no index can take: with
 * `dl` itself, PostgreSQL 15 on `verify:plan --seed`'s data preferred memory_terms_impact (its key
 * holds `dl`), which reads every posting of each term to find the memory's (decision 0121).
 */
export const WRITE_PASSAGES = statement<WritePassagesInputs, { written: number }>({
  name: 'maintenance/passages-write',
  expects: { postgresIndex: 'memory_terms_pkey' },
  render: (p) => sql`
WITH written AS (
  UPDATE memory_terms AS t SET passages = CAST(CAST(${p.masks} AS JSONB) ->> t.term AS INT4)
   WHERE t.region = ${p.region} AND t.user_id = ${p.userId}::uuid AND t.kind = ${p.kind}
     AND t.term = ANY(${p.terms}::text[]) AND t.memory_id = ${p.memoryId}::uuid
     AND t.passages IS NULL AND t.dl + 0 = ${p.length}::int4
  RETURNING 1
), recorded AS (
  INSERT INTO sweeper_state (region, name, value)
  SELECT ${p.region}, 'passages', ${p.walked}::text WHERE ${p.walked}::text IS NOT NULL
  ON CONFLICT (region, name) DO UPDATE SET value = excluded.value
  RETURNING 1
)
SELECT (SELECT count(*) FROM written)::int4 AS written`,
});
