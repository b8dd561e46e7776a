import { CONFLICTS, MEMORY_COLUMNS, prefixList, unexpired } from './sql-parts.js';

/** One arm's part of a fused score: its weight (the fusion array's `at`-th element) over k + rank. */
const fusedPart = (at: number) => `($8::float8[])[${at}] / (($8::float8[])[1] + CAST(rank AS FLOAT8))`;

/** The vector arm's last step: the live ones among the nearest rows, ranked. */
const liveRanked = (live: string) => `vector_arm AS (
  SELECT v.id, v.distance, row_number() OVER (ORDER BY v.distance, v.id) AS rank
    FROM vector_rows AS v
   WHERE ${live}
   ORDER BY v.distance, v.id
   LIMIT $7::int4
)`;

/** The vector arm on CockroachDB: nearest first over the vector index, whose prefix is (region, user, kind). */
const vectorArm = (prefixes: string, live: string) => `vector_rows AS (
  SELECT id, kind, pinned, last_useful_at, embedding <=> $3::vector AS distance
    FROM memories
   WHERE (region, user_id, kind) IN (${prefixes})
   ORDER BY embedding <=> $3::vector
   LIMIT $4::int4
), ${liveRanked(live)}`;

/**
 * The vector arm on PostgreSQL and PGlite, exact over what it reads (decision 0083): in each
 * partition that has cells, the `$8[8]` share of them nearest the query (materialized: a few rows
 * per kind), then each cell's memories by key of `memories_cell` (`OFFSET 0` keeps the read
 * per cell: pulled up into a plain join, PostgreSQL may read all the user's cells and merge);
 * and every memory of the partitions without a cell (`memories_uncelled`), which is all of a
 * partition that has none (a small one) and, in one that has, what was written since the sweeper
 * last assigned cells.
 */
const cellsVectorArm = (prefixes: string, live: string) => `near_cells AS MATERIALIZED (
  SELECT c.kind, c.cell
    FROM (SELECT c.kind, c.cell, count(*) OVER (PARTITION BY c.kind) AS cells,
                 row_number() OVER (PARTITION BY c.kind ORDER BY c.centroid <=> $3::vector, c.cell) AS nearness
            FROM memory_cells AS c
           WHERE (c.region, c.user_id, c.kind) IN (${prefixes}) AND c.ready) AS c
   WHERE c.nearness <= ceil(c.cells * ($8::float8[])[8])
), vector_rows AS (
  SELECT v.id, v.kind, v.pinned, v.last_useful_at, v.distance
    FROM (SELECT m.id, m.kind, m.pinned, m.last_useful_at, m.embedding <=> $3::vector AS distance
            FROM memories AS m
           WHERE (m.region, m.user_id, m.kind) IN (${prefixes}) AND m.cell IS NULL
          UNION ALL
          SELECT m.id, m.kind, m.pinned, m.last_useful_at, m.distance
            FROM near_cells AS n,
                 LATERAL (SELECT c.id, c.kind, c.pinned, c.last_useful_at, c.embedding <=> $3::vector AS distance
                            FROM memories AS c
                           WHERE c.region = $1 AND c.user_id = $2::uuid AND c.kind = n.kind AND c.cell = n.cell
                          OFFSET 0) AS m) AS v
   ORDER BY v.distance
   LIMIT $4::int4
), ${liveRanked(live)}`;

/** The lexical parameters' array (`$at`): {k1, b, a common term's least df, its least share of the partition, short length, half length, postings read per term}. */
const lex = (at: number, i: number) => `($${at}::float8[])[${i}]`;

/**
 * The lexical arm, BM25 over the caller's own partitions from their postings and kept statistics
 * (decision 0056): `$terms` the query's terms, `$params` the lexical parameters. A term's rarity
 * comes from its document frequency kept per partition, the average length from the partitions'
 * kept totals: nothing is counted on read. Candidates are the memories holding a rarer term; a
 * very common term (in more than a share of the partition) is left out, so its long posting list
 * is never read. Each remaining term's postings are read best first and at most `$params[7]` per
 * partition (decision 0078): the arm reads at most terms × that many rows whatever the partition's
 * size, and below that depth it is exact BM25. Ranked candidates are checked
 * for expiry on their rows, `$4` of them (the vector arm's candidate count) so that expired ones
 * cannot starve the `$7` kept.
 */
const lexicalArm = (kinds: number, first: number, live: string, terms: number, params: number) => {
  const prefixes = prefixList(kinds, first);
  // Per partition, a term's postings best first (most occurrences, then the shortest memory) and
  // at most $params[7] of them: the memory_terms_impact index hands them over in that order.
  const postings = Array.from(
    { length: kinds },
    (_, i) => `(SELECT p.memory_id, p.tf, p.dl
                      FROM memory_terms AS p
                     WHERE (p.region, p.user_id, p.kind) IN (${prefixList(1, first + i)}) AND p.term = w.term
                     ORDER BY p.tf DESC, p.dl
                     LIMIT CAST(${lex(params, 7)} AS INT8))`,
  ).join(' UNION ALL ');
  // One posting's part of its memory's score: BM25's saturated, length-normalised frequency.
  const bm25 = (p: string) => `${p}.tf * (w.k1 + 1) / (${p}.tf + w.k1 * (1 - w.b + w.b * ${p}.dl / w.average))`;
  const n = 'CAST(COALESCE(sum(p.memories), 0) AS FLOAT8)';
  return `lex_stats AS (
  -- k1 and b scaled by the share of the average length past the short length (lengthScaled in ranking.ts).
  SELECT l.n, l.average, ${lex(params, 1)} * l.share AS k1, ${lex(params, 2)} * l.share AS b
    FROM (SELECT a.n, a.average,
                 GREATEST(a.average - ${lex(params, 5)}, 0) / GREATEST(GREATEST(a.average - ${lex(params, 5)}, 0) + ${lex(params, 6)}, 1) AS share
            FROM (SELECT ${n} AS n, GREATEST(CAST(COALESCE(sum(p.term_total), 0) AS FLOAT8) / GREATEST(${n}, 1), 1) AS average
                    FROM memory_partitions AS p WHERE (p.region, p.user_id, p.kind) IN (${prefixes})) AS a) AS l
), lex_terms AS (
  SELECT d.term, CAST(sum(d.df) AS FLOAT8) AS df
    FROM memory_partition_terms AS d
   WHERE (d.region, d.user_id, d.kind) IN (${prefixes}) AND d.term = ANY($${terms}::text[])
   GROUP BY d.term
  HAVING sum(d.df) > 0
), lex_weights AS (
  SELECT t.term, ln(1 + (s.n - t.df + 0.5) / (t.df + 0.5)) AS idf,
         t.df <= GREATEST(${lex(params, 3)}, ${lex(params, 4)} * s.n) AS rare, s.average, s.k1, s.b
    FROM lex_terms AS t, lex_stats AS s
), lex_scores AS (
  SELECT x.memory_id AS id, sum(w.idf * ${bm25('x')}) AS score
    FROM lex_weights AS w,
         LATERAL (${postings}) AS x
   WHERE w.rare
   GROUP BY x.memory_id
), lex_top AS (
  SELECT s.id, s.score FROM lex_scores AS s ORDER BY s.score DESC, s.id LIMIT $4::int4
), lexical_arm AS (
  SELECT l.id, row_number() OVER (ORDER BY l.score DESC, l.id) AS rank
    FROM lex_top AS l JOIN memories AS m ON m.region = $1 AND m.id = l.id
   WHERE ${live}
   ORDER BY l.score DESC, l.id
   LIMIT $7::int4
)`;
};

/**
 * The memories that follow each ranked hit: the first `$8[6]` live ones among the `$8[7]` places
 * after the hit's in its (user, origin, kind), in the order they were written, scored at `$8[5]`
 * of the hit's score (decision 0082). The places are listed first (materialized, so that no
 * planner reads the origin and filters it instead), then each is read by key, so
 * a hit costs at most `$8[7]` point reads of `memories_origin_seq` on every engine, however many
 * memories its origin holds. A memory without an origin (or without a place) has no followers;
 * `origin IS NOT NULL` is written out so that each engine sees the partial index's predicate.
 */
const followingHits = (live: string) => `places AS MATERIALIZED (
  SELECT r.id AS hit, r.score, h.origin, h.kind, h.origin_seq + g.step AS place
    FROM ranked AS r
    JOIN memories AS h ON h.region = $1 AND h.id = r.id
   CROSS JOIN generate_series(1, CAST(($8::float8[])[7] AS INT8)) AS g(step)
   WHERE h.origin IS NOT NULL AND h.origin_seq IS NOT NULL
), following AS (
  SELECT f.id, f.score
    FROM (SELECT m.id, p.score * ($8::float8[])[5] AS score,
                 row_number() OVER (PARTITION BY p.hit ORDER BY m.origin_seq, m.id) AS rank
            FROM places AS p
            JOIN memories AS m
              ON m.region = $1 AND m.user_id = $2::uuid AND m.origin IS NOT NULL AND m.origin = p.origin
             AND m.kind = p.kind AND m.origin_seq = p.place
           WHERE ${live}) AS f
   WHERE f.rank <= CAST(($8::float8[])[6] AS INT8)
)`;

/** Recall's last step: the hits become useful (recall count and last usefulness), a commutative update. */
const TOUCH_HITS = `UPDATE memories AS m
     SET recall_count = m.recall_count + 1,
         last_useful_at = GREATEST(m.last_useful_at, $6::timestamptz)
    FROM hits
   WHERE m.region = $1 AND m.user_id = $2::uuid AND m.id = hits.id
  RETURNING ${MEMORY_COLUMNS('m')}, hits.score, m.embedding <=> $3::vector AS distance`;

/** The read-only twin of {@link TOUCH_HITS}: the same rows, nothing written; $6 is the instant read at. */
const READ_HITS = `SELECT ${MEMORY_COLUMNS('m')}, hits.score, m.embedding <=> $3::vector AS distance,
         $6::timestamptz AS read_at
    FROM memories AS m JOIN hits ON hits.id = m.id
   WHERE m.region = $1 AND m.user_id = $2::uuid`;

/**
 * The best unexpired memories first, marking each returned one useful: one statement.
 * $1 region, $2 user, $3 embedding, $4 candidates per arm, $5 limit, $6 now, $7 depth of each arm,
 * $8 fusion as FLOAT8[] {k, vector weight, lexical weight, farthest distance, following share, following count,
 * places looked at after a hit, share of a partition's cells read},
 * then the kinds searched ($9…),
 * then (kind, cutoff) pairs for kinds with a TTL, then, with a lexical arm, the query's terms as
 * TEXT[] and the lexical parameters as FLOAT8[] {k1, b, common least df, common least share, short length, half length}.
 *
 * The vector arm reads the vector index with the (region, user, kind) prefix pinned and nothing
 * else on CockroachDB; with `cells` (PostgreSQL and PGlite, which have no such index) it reads the
 * nearest cells of each partition that has them, and the rest exactly (`cellsVectorArm`). The
 * lexical arm reads the postings and kept statistics of the same partitions (see `lexicalArm`);
 * expiry is checked on the rows each returns. The ranks are fused: score =
 * Σ weight / (k + rank), reciprocal rank fusion. An arm of weight 0 still runs but counts for
 * nothing, and what only it found is not returned (the lexical arm alone). The relevance floor: a
 * memory the lexical arm did not find is returned only within the farthest distance, so a query
 * that matches no term and lies far from every memory returns nothing. The ranked hits then bring
 * the memories that follow them in their origin (`followingHits`), and the best `$5` of both are
 * returned, so nothing follows a query that found nothing. With `touch` false the
 * same ranking is read without the UPDATE: looking is not recalling (the memory page's search);
 * $6 is then only echoed back.
 */
export function recallSql(kinds: number, ttlKinds: number, lexical: boolean, touch = true, cells = false): string {
  const prefixes = prefixList(kinds, 9);
  const cutoffs = 9 + kinds;
  const ctes = [(cells ? cellsVectorArm : vectorArm)(prefixes, unexpired(ttlKinds, cutoffs, 'v'))];
  // The relevance floor: what only the vector arm found counts as found within the distance bound ($8[4]).
  const parts = [`SELECT id, ${fusedPart(2)} AS part, distance <= ($8::float8[])[4] AS related FROM vector_arm`];
  if (lexical) {
    const terms = cutoffs + 2 * ttlKinds;
    ctes.push(lexicalArm(kinds, 9, unexpired(ttlKinds, cutoffs, 'm'), terms, terms + 1));
    parts.push(`SELECT id, ${fusedPart(3)} AS part, TRUE AS related FROM lexical_arm`);
  }
  return `
WITH ${ctes.join(', ')}, ranked AS (
  SELECT arms.id, sum(arms.part) AS score
    FROM (${parts.join(' UNION ALL ')}) AS arms
   GROUP BY arms.id
  HAVING sum(arms.part) > 0 AND bool_or(arms.related)
   ORDER BY score DESC, arms.id
   LIMIT $5::int4
), ${followingHits(unexpired(ttlKinds, cutoffs, 'm'))}, hits AS (
  -- A memory both ranked and following another keeps its better score.
  SELECT c.id, max(c.score) AS score
    FROM (SELECT id, score FROM ranked UNION ALL SELECT id, score FROM following) AS c
   GROUP BY c.id
  HAVING max(c.score) > 0
   ORDER BY score DESC, c.id
   LIMIT $5::int4
), found AS (
  ${touch ? TOUCH_HITS : READ_HITS}
)
SELECT t.id::text AS id, t.kind, t.content, t.pinned, t.created_at, t.last_useful_at, t.recall_count,
       t.restatements, t.origin, t.agent, t.client, t.restated_by, t.distance, t.score,
       ${CONFLICTS('t')} AS conflicts
  FROM found AS t
 ORDER BY t.score DESC, t.id`;
}
