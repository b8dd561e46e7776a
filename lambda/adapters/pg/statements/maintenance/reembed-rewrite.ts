import { statement } from '../../sql/statement.js';
import { sql, verbatim } from '../../sql/template.js';
import { memoryPostings, postingAt, postingsOf, termListsOf } from '../../sql/postings.js';

export interface ReembedRewriteInputs {
  readonly region: string;
  /** Where the vectors go: `embedding`, or the new column of a change of dimension. */
  readonly column: 'embedding' | 'embedding_next';
  readonly ids: readonly string[];
  /** Each row's new vector, as its literal. */
  readonly embeddings: readonly string[];
  /** The rows' postings: id, term (checked), frequency. */
  readonly postingIds: readonly string[];
  readonly postingTerms: readonly string[];
  readonly postingFrequencies: readonly number[];
  /** The passages each posting's term occurs in, as masks (LexicalAnalyzer.passages). */
  readonly postingPassages: readonly number[];
  /** Each row's length in terms. */
  readonly lengths: readonly number[];
  /** Where the walk stands after this batch (JSON). */
  readonly cursor: string;
}

/**
 * One region's rows of a batch rewritten — vectors, terms, postings, and the partitions' document
 * frequencies and lengths by the difference — and the cursor moved past them: one statement, so a
 * stop never loses a batch, and the statistics are right after every batch. New postings are
 * not flagged, and every term met is left for the sweeper to rank (decision 0101). Postings of
 * terms a row keeps are updated in place, so no row is deleted and inserted by the same statement
 * (which CockroachDB refuses to do safely); each old posting is found by what its memory's row held
 * before (decision 0167), and only terms the row did not hold are inserted.
 */
export const REEMBED_REWRITE = statement<ReembedRewriteInputs, { rewritten: number; moved: number }>({
  name: 'maintenance/reembed-rewrite',
  expects: { vectorMutation: true, postgresIndex: 'memories_pkey' },
  render: (p, inputs, engine) => {
    const kept = postingAt('p', 's', engine);
    return sql`
WITH old AS (
  SELECT m.id, m.user_id, m.kind, m.terms, m.term_tfs, m.term_count FROM memories AS m
   WHERE m.region = ${p.region} AND m.id = ANY(${p.ids}::uuid[])
), old_postings AS (
  ${memoryPostings('old', engine)}
), fresh AS (
  SELECT f.id, f.term, f.tf, f.passages, f.n, o.user_id, o.kind
    FROM unnest(${p.postingIds}::uuid[], ${p.postingTerms}::text[], ${p.postingFrequencies}::int4[], ${p.postingPassages}::int4[])
         WITH ORDINALITY AS f(id, term, tf, passages, n)
    JOIN old AS o ON o.id = f.id
), given AS (
  SELECT u.id, u.embedding, u.dl, t.terms, t.tfs
    FROM unnest(${p.ids}::uuid[], ${p.embeddings}::text[], ${p.lengths}::int4[]) AS u(id, embedding, dl)
    LEFT JOIN (${termListsOf('fresh')}) AS t ON t.id = u.id
), rewritten AS (
  UPDATE memories AS m
     SET ${verbatim(inputs.column === 'embedding' ? 'embedding' : 'embedding_next')} = g.embedding::vector,
         terms = COALESCE(g.terms, ARRAY[]::text[]), term_tfs = COALESCE(g.tfs, ARRAY[]::int4[]), term_count = g.dl
    FROM given AS g
   WHERE m.region = ${p.region} AND m.id = g.id
  RETURNING 1
), dropped AS (
  SELECT o.* FROM old_postings AS o WHERE NOT EXISTS (SELECT 1 FROM fresh AS f WHERE f.id = o.id AND f.term = o.term)
), kept AS (
  SELECT o.*, f.tf AS new_tf, g.dl AS new_dl, f.passages
    FROM old_postings AS o JOIN fresh AS f ON f.id = o.id AND f.term = o.term JOIN given AS g ON g.id = o.id
), unposted AS (
  DELETE FROM memory_terms AS p
   WHERE p.region = ${p.region} AND ${postingsOf('p', 'dropped', engine)}
  RETURNING p.user_id, p.kind, p.term, p.best
), updated AS (
  UPDATE memory_terms AS p SET tf = s.new_tf, dl = s.new_dl, passages = s.passages
    FROM kept AS s
   WHERE p.region = ${p.region} AND ${kept}
  RETURNING 1
), posted AS (
  INSERT INTO memory_terms (region, user_id, kind, term, memory_id, tf, dl, passages)
  SELECT ${p.region}, f.user_id, f.kind, f.term, f.id, f.tf, g.dl, f.passages FROM fresh AS f JOIN given AS g ON g.id = f.id
   WHERE NOT EXISTS (SELECT 1 FROM old_postings AS o WHERE o.id = f.id AND o.term = f.term)
  RETURNING 1
), term_changes AS (
  SELECT c.user_id, c.kind, c.term, CAST(sum(c.df) AS INT4) AS df, CAST(sum(c.best) AS INT4) AS best FROM (
    SELECT u.user_id, u.kind, u.term, -1 AS df, CASE WHEN u.best THEN -1 ELSE 0 END AS best FROM unposted AS u
    UNION ALL
    SELECT f.user_id, f.kind, f.term,
           CASE WHEN EXISTS (SELECT 1 FROM old_postings AS o WHERE o.id = f.id AND o.term = f.term) THEN 0 ELSE 1 END, 0
      FROM fresh AS f
  ) AS c GROUP BY c.user_id, c.kind, c.term
), rarity AS (
  -- Postings moved in the order: the cut is forgotten, and the sweeper ranks each term again.
  INSERT INTO memory_partition_terms AS d (region, user_id, kind, term, df, best, stale)
  SELECT ${p.region}, c.user_id, c.kind, c.term, c.df, c.best, true FROM term_changes AS c
  ON CONFLICT (region, user_id, kind, term) DO UPDATE
     SET df = d.df + excluded.df, best = d.best + excluded.best, cut_tf = NULL, cut_dl = NULL, cut_id = NULL, stale = true
  RETURNING 1
), lengths AS (
  UPDATE memory_partitions AS p SET term_total = p.term_total + c.change
    FROM (SELECT o.user_id, o.kind, sum(g.dl - o.term_count) AS change
            FROM old AS o JOIN given AS g ON g.id = o.id GROUP BY o.user_id, o.kind) AS c
   WHERE p.region = ${p.region} AND p.user_id = c.user_id AND p.kind = c.kind
  RETURNING 1
), moved AS (
  INSERT INTO naaba_settings (name, value) VALUES ('reembed_cursor', ${p.cursor})
  ON CONFLICT (name) DO UPDATE SET value = excluded.value
  RETURNING 1
)
SELECT (SELECT count(*) FROM rewritten)::int4 AS rewritten, (SELECT count(*) FROM moved)::int4 AS moved`;
  },
});
