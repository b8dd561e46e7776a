import { statement } from '../../sql/statement.js';
import { sql, verbatim } from '../../sql/template.js';

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
  /** Each row's length in terms. */
  readonly lengths: readonly number[];
  /** Where the walk stands after this batch (JSON). */
  readonly cursor: string;
}

/**
 * One region's rows of a batch rewritten — vectors, terms, postings, and the partitions' document
 * frequencies and lengths by the difference — and the cursor moved past them: one statement, so a
 * stop never loses a batch, and the statistics are right after every batch. Postings of terms a row
 * keeps are updated in place, so no row is deleted and inserted by the same statement (which
 * CockroachDB refuses to do safely).
 */
export const REEMBED_REWRITE = statement<ReembedRewriteInputs, { rewritten: number; moved: number }>({
  name: 'maintenance/reembed-rewrite',
  expects: { vectorMutation: true, postgresIndex: 'memories_pkey' },
  render: (p, inputs) => sql`
WITH old AS (
  SELECT m.id, m.user_id, m.kind, m.terms, m.term_count FROM memories AS m
   WHERE m.region = ${p.region} AND m.id = ANY(${p.ids}::uuid[])
), fresh AS (
  SELECT f.id, f.term, f.tf, o.user_id, o.kind
    FROM unnest(${p.postingIds}::uuid[], ${p.postingTerms}::text[], ${p.postingFrequencies}::int4[]) AS f(id, term, tf) JOIN old AS o ON o.id = f.id
), given AS (
  SELECT u.id, u.embedding, u.dl, t.terms
    FROM unnest(${p.ids}::uuid[], ${p.embeddings}::text[], ${p.lengths}::int4[]) AS u(id, embedding, dl)
    LEFT JOIN (SELECT id, array_agg(term) AS terms FROM fresh GROUP BY id) AS t ON t.id = u.id
), rewritten AS (
  UPDATE memories AS m
     SET ${verbatim(inputs.column === 'embedding' ? 'embedding' : 'embedding_next')} = g.embedding::vector, terms = COALESCE(g.terms, ARRAY[]::text[]), term_count = g.dl
    FROM given AS g
   WHERE m.region = ${p.region} AND m.id = g.id
  RETURNING 1
), dropped AS (
  SELECT o.user_id, o.kind, t.term, o.id FROM old AS o, unnest(o.terms) AS t(term)
   WHERE NOT EXISTS (SELECT 1 FROM fresh AS f WHERE f.id = o.id AND f.term = t.term)
), unposted AS (
  DELETE FROM memory_terms AS p
   WHERE p.region = ${p.region} AND (p.user_id, p.kind, p.term, p.memory_id) IN (SELECT user_id, kind, term, id FROM dropped)
  RETURNING 1
), posted AS (
  INSERT INTO memory_terms AS p (region, user_id, kind, term, memory_id, tf, dl)
  SELECT ${p.region}, f.user_id, f.kind, f.term, f.id, f.tf, g.dl FROM fresh AS f JOIN given AS g ON g.id = f.id
  ON CONFLICT (region, user_id, kind, term, memory_id) DO UPDATE SET tf = excluded.tf, dl = excluded.dl
  RETURNING 1
), term_changes AS (
  SELECT c.user_id, c.kind, c.term, CAST(sum(c.change) AS INT4) AS change FROM (
    SELECT user_id, kind, term, -1 AS change FROM dropped
    UNION ALL
    SELECT f.user_id, f.kind, f.term, 1 AS change FROM fresh AS f
     WHERE NOT EXISTS (SELECT 1 FROM old AS o, unnest(o.terms) AS t(term) WHERE o.id = f.id AND t.term = f.term)
  ) AS c GROUP BY c.user_id, c.kind, c.term HAVING sum(c.change) <> 0
), rarity AS (
  INSERT INTO memory_partition_terms AS d (region, user_id, kind, term, df)
  SELECT ${p.region}, c.user_id, c.kind, c.term, c.change FROM term_changes AS c
  ON CONFLICT (region, user_id, kind, term) DO UPDATE SET df = d.df + excluded.df
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
SELECT (SELECT count(*) FROM rewritten)::int4 AS rewritten, (SELECT count(*) FROM moved)::int4 AS moved`,
});
