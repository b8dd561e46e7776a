import { LEXICAL, POSTING_CUT } from '../../../memory/policy/ranking.js';
import type { SqlEngine } from '../sql-client.js';
import { type Param, param, type SqlFragment, sql, verbatim } from './template.js';

/**
 * The flagged postings of each (partition, term) (decision 0101): at most `POSTING_CUT.flagged`,
 * the best ones in the lexical arm's order (most occurrences, then the shortest memory, then the
 * memory id), with the count and the last one's place (the cut) kept in memory_partition_terms.
 * Every statement that writes postings keeps them here, with bounded work per posting: a new
 * posting is flagged when it beats the cut while there is room; what a write cannot keep exact, it
 * marks `stale` for the sweeper to rank (maintenance/rank-postings).
 */

/** The most postings of one (partition, term) that are ever flagged: the bound recall reads under. */
const FLAGGED = param('postingsFlagged', POSTING_CUT.flagged);
/** The depth recall reads a term to: below it a term is read whole, above it from its flagged postings. */
const DEPTH = param('postingsDepth', LEXICAL.postingsPerTerm);

/**
 * True when a term's flagged postings may miss some of its best `postingsPerTerm`: it is in more
 * memories than that and either fewer are flagged, or no cut is known while some are not flagged
 * (then the flagged ones are not known to be the best).
 */
export const unranked = (df: SqlFragment, best: SqlFragment, noCut: SqlFragment): SqlFragment =>
  sql`(${df} > ${DEPTH}::int4 AND (${best} < ${DEPTH}::int4 OR (${noCut} AND ${df} > ${best})))`;

/**
 * New postings of one user with their flags: `source` has columns kind, term, memory_id, tf, dl, passages.
 * A posting is flagged when it is at or before its term's cut (any, when no cut is known) and the
 * term has room, its better new postings counted first. `passes` says it beats the cut: one that
 * passes but is not flagged found no room (an overflow), and the flagged ones are then no longer
 * known to be the best. Each posting reads its term's counts by key, one lookup per posting
 * (`OFFSET 0` keeps PostgreSQL from merging the subquery into a join that reads every term of the
 * partition): a list of the terms beside the key made PostgreSQL sort that list again at every
 * lookup, and an 8 KB memory's 865 postings took 220 ms (decision 0158). A bulk load asks
 * `'per term'`: each distinct term's counts read once by key and joined back to its postings, since
 * 5,000 chat turns hold about 158,000 postings of 12,000 terms, and lookups per posting cost more as
 * the partition grew (decision 0164, PGlite: the flags ready in 0.98 s into an empty partition and
 * 1.70 s into one of 45,000, against 1.22 s and 1.36 s per term).
 */
export function flaggedPostings(
  source: string,
  region: Param<string>,
  userId: Param<string>,
  lookups: 'per posting' | 'per term' = 'per posting',
): SqlFragment {
  const from = verbatim(source);
  const counts = (of: SqlFragment) => sql`LEFT JOIN LATERAL (
              SELECT d.best, d.cut_tf, d.cut_dl, d.cut_id FROM memory_partition_terms AS d
               WHERE d.region = ${region} AND d.user_id = ${userId}::uuid AND d.kind = ${of}.kind AND d.term = ${of}.term OFFSET 0
            ) AS t ON true`;
  const flags = (postings: SqlFragment) => sql`posting_flags AS (
  SELECT n.kind, n.term, n.memory_id, n.tf, n.dl, n.passages,
         n.passes AND n.best + row_number() OVER (PARTITION BY n.kind, n.term, n.passes ORDER BY n.tf DESC, n.dl, n.memory_id) <= ${FLAGGED}::int4 AS best,
         n.passes
    FROM (SELECT s.kind, s.term, s.memory_id, s.tf, s.dl, s.passages, COALESCE(t.best, 0) AS best,
                 t.cut_id IS NULL OR (-s.tf, s.dl, s.memory_id) <= (-t.cut_tf, t.cut_dl, t.cut_id) AS passes
            ${postings}) AS n
)`;
  if (lookups === 'per posting')
    return flags(sql`FROM ${from} AS s
            ${counts(sql`s`)}`);
  return sql`known_terms AS (
  SELECT k.kind, k.term, t.best, t.cut_tf, t.cut_dl, t.cut_id
    FROM (SELECT DISTINCT kind, term FROM ${from}) AS k
         ${counts(sql`k`)}
), ${flags(sql`FROM ${from} AS s JOIN known_terms AS t ON t.kind = s.kind AND t.term = s.term`)}`;
}

/**
 * Each memory's terms and their frequencies (`terms`, `tfs`), in the order its postings were given,
 * from `postings` (columns id, term, tf and n, the posting's place among them): one grouping of
 * every posting, where a list gathered for each memory from all of them read the batch's postings
 * once per memory.
 */
export const termListsOf = (postings: string): SqlFragment =>
  sql`SELECT p.id, array_agg(p.term ORDER BY p.n) AS terms, array_agg(p.tf ORDER BY p.n) AS tfs FROM ${verbatim(postings)} AS p GROUP BY p.id`;

/** {@link termListsOf} as the CTE `term_lists`. */
export const termLists = (postings: string): SqlFragment => sql`term_lists AS (
  ${termListsOf(postings)}
)`;

/**
 * The condition that finds postings again from their memories (decision 0167): `source` has
 * columns user_id, kind, term, tf, dl and id, one row per posting, from the memories' `terms`,
 * `term_tfs` and `term_count` ({@link memoryPostings}). On PostgreSQL and PGlite memory_terms has one index,
 * memory_terms_ranked, so a posting is found by that whole key: its flag either way (two probes),
 * its frequency and its memory's length, never by a scan of its term. On CockroachDB the primary
 * key `(term, memory_id)` finds it, as before.
 */
export function postingsOf(alias: string, source: string, engine: SqlEngine): SqlFragment {
  const [p, s] = [verbatim(alias), verbatim(source)];
  if (engine === 'cockroach')
    return sql`(${p}.user_id, ${p}.kind, ${p}.term, ${p}.memory_id) IN (SELECT s.user_id, s.kind, s.term, s.id FROM ${s} AS s)`;
  return sql`${p}.best = ${BOTH_FLAGS} AND (${p}.user_id, ${p}.kind, ${p}.term, ${p}.tf, ${p}.dl, ${p}.memory_id) IN (
      SELECT s.user_id, s.kind, s.term, s.tf, s.dl, s.id FROM ${s} AS s)`;
}

/**
 * A posting's flag is not known from its memory: it is looked for both ways, an array that the
 * index takes as two probes (as a join to two rows, PostgreSQL left the flag out of the index
 * condition and read every posting of the term).
 */
const BOTH_FLAGS = verbatim('ANY (ARRAY[false, true])');

/**
 * {@link postingsOf} for one row in scope (`row`, with columns user_id, kind, term, tf, dl and id),
 * as a join condition that ties `alias` to it.
 */
export function postingAt(alias: string, row: string, engine: SqlEngine): SqlFragment {
  const [p, r] = [verbatim(alias), verbatim(row)];
  const memory = sql`${p}.user_id = ${r}.user_id AND ${p}.kind = ${r}.kind AND ${p}.term = ${r}.term AND ${p}.memory_id = ${r}.id`;
  if (engine === 'cockroach') return memory;
  return sql`${memory} AND ${p}.best = ${BOTH_FLAGS} AND ${p}.tf = ${r}.tf AND ${p}.dl = ${r}.dl`;
}

/**
 * One row per posting of the memories `rows` (columns user_id, kind, id, terms, term_tfs and
 * term_count): what {@link postingsOf} finds them by. CockroachDB needs no frequency (rows written
 * before its 0025 have none), so there the terms alone are read.
 */
export function memoryPostings(rows: string | SqlFragment, engine: SqlEngine): SqlFragment {
  const from = typeof rows === 'string' ? verbatim(rows) : rows;
  if (engine === 'cockroach')
    return sql`SELECT g.user_id, g.kind, t.term, CAST(NULL AS INT4) AS tf, g.term_count AS dl, g.id
    FROM ${from} AS g, unnest(g.terms) AS t(term)`;
  return sql`SELECT g.user_id, g.kind, t.term, t.tf, g.term_count AS dl, g.id
    FROM ${from} AS g, unnest(g.terms, g.term_tfs) AS t(term, tf)`;
}

/** What new postings (`flagged`, from {@link flaggedPostings}) change in their terms' statistics, per (kind, term). */
export const termChanges = (flagged: string): SqlFragment =>
  sql`SELECT f.kind, f.term, CAST(count(*) AS INT4) AS df, CAST(count(*) FILTER (WHERE f.best) AS INT4) AS best,
         bool_or(f.passes AND NOT f.best) AS overflow
    FROM ${verbatim(flagged)} AS f GROUP BY f.kind, f.term`;

/**
 * The upsert of one user's term statistics by change: `changes` has columns kind, term, df (the
 * change of document frequency), best (of flagged postings) and overflow. A term met for the first
 * time is flagged whole unless it overflowed; on a known term an overflow forgets the cut, and the
 * term is marked for ranking when its flagged postings may miss some of its best.
 */
export function countedTerms(changes: string, region: Param<string>, userId: Param<string>): SqlFragment {
  const noCut = sql`(excluded.stale OR d.cut_id IS NULL)`;
  const forget = (column: string) => verbatim(`CASE WHEN excluded.stale THEN NULL ELSE d.${column} END`);
  return sql`INSERT INTO memory_partition_terms AS d (region, user_id, kind, term, df, best, stale)
  SELECT ${region}, ${userId}::uuid, c.kind, c.term, c.df, c.best, c.overflow FROM ${verbatim(changes)} AS c
  ON CONFLICT (region, user_id, kind, term) DO UPDATE
     SET df = d.df + excluded.df, best = d.best + excluded.best,
         cut_tf = ${forget('cut_tf')}, cut_dl = ${forget('cut_dl')}, cut_id = ${forget('cut_id')},
         stale = d.stale OR excluded.stale OR ${unranked(sql`d.df + excluded.df`, sql`d.best + excluded.best`, noCut)}`;
}
