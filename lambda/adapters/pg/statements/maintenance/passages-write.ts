import { memoryPostings, postingAt } from '../../sql/postings.js';
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
 * statement, its terms as an array and their masks as an object, each posting finding its mask by
 * its term, so the plan reads the memory's postings only, however stale the statistics of
 * `passages` are. On CockroachDB every column of the primary key is in the index condition (the
 * terms by `= ANY`), with no join. On PostgreSQL memory_terms_ranked is the postings' only index
 * (decision 0167): the memory's row gives each posting's whole key there (its term's frequency from
 * `term_tfs`, its length, its flag both ways), one probe per posting, and `= ANY` keeps only the
 * terms given. Joined over a page's many partitions, PGlite once planned a read of the region per
 * posting and held one statement 64 s; with the terms' list in a rescanned index condition, a sort
 * of the list per posting (615–779 ms at 400 terms). The length given is compared as `dl + 0`, which
 * no index takes, so that the key's `dl` is the memory's (decision 0121).
 */
export const WRITE_PASSAGES = statement<WritePassagesInputs, { written: number }>({
  name: 'maintenance/passages-write',
  expects: { postgresIndex: 'memory_terms_ranked' },
  render: (p, _inputs, engine) => {
    const mask = sql`CAST(CAST(${p.masks} AS JSONB) ->> t.term AS INT4)`;
    const unmasked = sql`t.passages IS NULL AND t.dl + 0 = ${p.length}::int4`;
    const partition = sql`t.region = ${p.region} AND t.user_id = ${p.userId}::uuid AND t.kind = ${p.kind}`;
    const posting = postingAt('t', 's', engine);
    const written =
      engine === 'cockroach'
        ? sql`UPDATE memory_terms AS t SET passages = ${mask}
   WHERE ${partition} AND t.term = ANY(${p.terms}::text[]) AND t.memory_id = ${p.memoryId}::uuid AND ${unmasked}`
        : sql`UPDATE memory_terms AS t SET passages = ${mask}
    FROM (${memoryPostings(
      sql`(SELECT m.user_id, m.kind, m.id, m.terms, m.term_tfs, m.term_count FROM memories AS m
                                WHERE m.region = ${p.region} AND m.id = ${p.memoryId}::uuid)`,
      engine,
    )}) AS s
   WHERE ${partition} AND ${posting} AND s.term = ANY(${p.terms}::text[]) AND ${unmasked}`;
    return sql`
WITH written AS (
  ${written}
  RETURNING 1
), recorded AS (
  INSERT INTO sweeper_state (region, name, value)
  SELECT ${p.region}, 'passages', ${p.walked}::text WHERE ${p.walked}::text IS NOT NULL
  ON CONFLICT (region, name) DO UPDATE SET value = excluded.value
  RETURNING 1
)
SELECT (SELECT count(*) FROM written)::int4 AS written`;
  },
});
