import type { Scope } from '../../../../memory/model.js';
import { statement } from '../../sql/statement.js';
import { sql, verbatim } from '../../sql/template.js';

export interface RankPostingsInputs {
  readonly scope: Scope;
  readonly kind: string;
  readonly term: string;
  /** How many of the term's best postings to flag (`POSTING_CUT.ranked`). */
  readonly ranked: number;
}

/**
 * One term of one partition ranked again (decision 0101): its best `ranked` postings flagged and
 * the others not, the count and the cut (the last flagged one's place, none when every posting is
 * flagged) kept, and the mark cleared. Reads the term's best `ranked` postings as the best `ranked`
 * of each span of memory_terms_ranked (its flagged postings, then the others, each best first,
 * decision 0160) and its flagged ones through the flagged span: bounded by twice `ranked` and
 * `POSTING_CUT.flagged`, with the (partition, term) given as constants so that no engine has a
 * correlated LIMIT to rewrite. Writes the term's statistics row, which every writer of a posting
 * of the term writes too, so a ranking and a concurrent write cannot both commit on what the other
 * changed.
 *
 * The postings to flag are found again by what `top` read, never by the term's key: on PostgreSQL
 * by their row address (`ctid`, a TID scan of at most `ranked` rows whatever the planner believes
 * of the term), since a term's postings looked up by key and joined to `top` were planned, on a
 * table not yet analysed after a bulk load, as a scan of every posting of the term: 24,114 of them
 * for "and" at 50,000 memories, 2.2 s on PGlite (`npm run bench:rank-postings`, decision 0121). A row changed since `top` read it fails the
 * statement at the default isolation (SERIALIZABLE) and the retry ranks again. CockroachDB has no
 * row address: there the constants and `top`'s memory id make the primary key whole.
 */
export const RANK_POSTINGS = statement<RankPostingsInputs, { flagged: number; unflagged: number }>({
  name: 'maintenance/rank-postings',
  expects: { postgresIndex: 'memory_terms_ranked' },
  render: (p, _inputs, engine) => {
    const { region, userId } = p.scope;
    const term = sql`p.region = ${region} AND p.user_id = ${userId}::uuid AND p.kind = ${p.kind} AND p.term = ${p.term}`;
    const toFlag =
      engine === 'cockroach'
        ? sql`${term} AND NOT p.best AND p.memory_id IN (SELECT t.memory_id FROM top AS t)`
        : sql`p.ctid = ANY (ARRAY(SELECT t.ctid FROM top AS t)) AND NOT p.best`;
    const columns = sql`p.memory_id, p.tf, p.dl${engine === 'cockroach' ? sql`` : sql`, p.ctid`}`;
    // The best `ranked` of one span of the term (its flagged postings or the others), in the index's order.
    const span = (flagged: boolean) => sql`SELECT ${columns} FROM memory_terms AS p
            WHERE ${term} AND p.best = ${verbatim(String(flagged))}
            ORDER BY p.tf DESC, p.dl, p.memory_id
            LIMIT ${p.ranked}::int4`;
    return sql`
WITH top AS MATERIALIZED (
  SELECT t.* FROM (SELECT * FROM (${span(true)}) AS f
                   UNION ALL
                   SELECT * FROM (${span(false)}) AS u) AS t
   ORDER BY t.tf DESC, t.dl, t.memory_id
   LIMIT ${p.ranked}::int4
), last AS (
  SELECT t.tf, t.dl, t.memory_id, (SELECT count(*) FROM top) AS n FROM top AS t
   ORDER BY t.tf, t.dl DESC, t.memory_id DESC
   LIMIT 1
), unflagged AS (
  UPDATE memory_terms AS p SET best = false
   WHERE ${term} AND p.best AND p.memory_id NOT IN (SELECT t.memory_id FROM top AS t)
  RETURNING 1
), flagged AS (
  UPDATE memory_terms AS p SET best = true
   WHERE ${toFlag}
  RETURNING 1
), ranked AS (
  UPDATE memory_partition_terms AS d
     SET best = (SELECT count(*) FROM top),
         cut_tf = (SELECT l.tf FROM last AS l WHERE d.df > l.n),
         cut_dl = (SELECT l.dl FROM last AS l WHERE d.df > l.n),
         cut_id = (SELECT l.memory_id FROM last AS l WHERE d.df > l.n),
         stale = false
   WHERE d.region = ${region} AND d.user_id = ${userId}::uuid AND d.kind = ${p.kind} AND d.term = ${p.term}
  RETURNING 1
)
SELECT (SELECT count(*) FROM flagged)::int4 AS flagged, (SELECT count(*) FROM unflagged)::int4 AS unflagged,
       (SELECT count(*) FROM ranked)::int4 AS ranked`;
  },
});
