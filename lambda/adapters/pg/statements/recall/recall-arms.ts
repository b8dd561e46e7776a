import { MAX_PASSAGE, PASSAGE_TERMS } from '../../../../memory/lexical.js';
import { SCORE_GRAIN } from '../../../../memory/policy/ranking.js';
import type { Param, Params } from '../../sql/template.js';
import { join, param, type SqlFragment, sql } from '../../sql/template.js';
import type { RecallInputs } from './recall-inputs.js';

/** The passages a posting's mask counts (decision 0115): PASSAGE_TERMS terms each, the last one holding the rest. */
const PASSAGE_SIZE = param('passageTerms', PASSAGE_TERMS);
const LAST_PASSAGE = param('lastPassage', MAX_PASSAGE);
const GRAIN = param('scoreGrain', SCORE_GRAIN);

/** One partition the lexical arm reads: its (region, user, kind) tuple, and its kind alone. */
export interface PartitionParams {
  readonly prefix: SqlFragment;
  readonly kind: Param<string>;
}

/**
 * The parts of the recall statement (recall.ts): the vector arm on each engine, the lexical arm, and
 * what follows a hit. Each reads the statement's named parameters `p` and the partitions' prefix
 * list `prefixes`; `live` is the liveness predicate of the row each arm returns.
 */

/** One arm's part of a fused score: its weight over k + rank (reciprocal rank fusion). */
export const fusedPart = (p: Params<RecallInputs>, weight: SqlFragment) =>
  sql`${weight}::float8 / (${p.fusion.k}::float8 + CAST(rank AS FLOAT8))`;

/** The vector arm's last step: the live ones among the nearest rows, ranked. */
const liveRanked = (p: Params<RecallInputs>, live: SqlFragment) => sql`vector_arm AS (
  SELECT v.id, v.distance, row_number() OVER (ORDER BY v.distance, v.id) AS rank
    FROM vector_rows AS v
   WHERE ${live}
   ORDER BY v.distance, v.id
   LIMIT ${p.depth}::int4
)`;

/** The vector arm on CockroachDB: nearest first over the vector index, whose prefix is (region, user, kind). */
export const vectorArm = (p: Params<RecallInputs>, prefixes: SqlFragment, live: SqlFragment) => sql`vector_rows AS (
  SELECT id, kind, pinned, last_useful_at, superseded_by, embedding <=> ${p.embedding}::vector AS distance
    FROM memories
   WHERE (region, user_id, kind) IN (${prefixes})
   ORDER BY embedding <=> ${p.embedding}::vector
   LIMIT ${p.candidates}::int4
), ${liveRanked(p, live)}`;

/**
 * The lexical arm's candidates in a cell the vector arm does not read, with their distance
 * (cellsVectorArm): each read by primary key (`OFFSET 0` keeps it a read per candidate: joined
 * plainly, PostgreSQL without statistics hashed the user's whole partition against them), and none
 * when no partition searched has cells (a one-time filter: small partitions pay nothing).
 */
const lexicalNear = (p: Params<RecallInputs>) => sql`
          UNION ALL
          SELECT m.id, m.kind, m.pinned, m.last_useful_at, m.superseded_by, m.distance
            FROM lex_top AS l,
                 LATERAL (SELECT c.id, c.user_id, c.kind, c.cell, c.pinned, c.last_useful_at, c.superseded_by,
                                 c.embedding <=> ${p.embedding}::vector AS distance
                            FROM memories AS c
                           WHERE c.region = ${p.scope.region} AND c.id = l.id
                          OFFSET 0) AS m
           WHERE EXISTS (SELECT 1 FROM near_cells)
             AND m.user_id = ${p.scope.userId}::uuid AND m.cell IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM near_cells AS n WHERE n.kind = m.kind AND n.cell = m.cell)`;

/**
 * The vector arm on PostgreSQL and PGlite, exact over what it reads (decisions 0083, 0100): in each
 * partition that has cells, its cells nearest the query first, as long as the memories they hold
 * before them (each cell's kept count) stay under `cellRows` (materialized: a few rows per kind),
 * then each cell's memories by key of `memories_cell` (`OFFSET 0` keeps the read per cell: pulled
 * up into a plain join, PostgreSQL may read all the user's cells and merge); and every memory of
 * the partitions without a cell (`memories_uncelled`), which is all of a partition that has none
 * (a small one) and, in one that has, what was written since the sweeper last placed memories. So
 * a partition with cells costs its centroids (about √n) and under `cellRows` memories plus one
 * cell's (about √n), whatever its size; a cell whose count is not known yet (0) is read without
 * counting. With `lexical`, the lexical arm's candidates (`lex_top`, rendered before) that lie in
 * a cell not read are measured too, by key (decision 0105): a memory that shares the query's words
 * and lies near it is then ranked by the vector arm wherever its cell, at `candidates` point reads.
 */
export const cellsVectorArm = (
  p: Params<RecallInputs>,
  prefixes: SqlFragment,
  live: SqlFragment,
  lexical = false,
) => sql`near_cells AS MATERIALIZED (
  SELECT c.kind, c.cell
    FROM (SELECT c.kind, c.cell,
                 sum(c.members) OVER (PARTITION BY c.kind ORDER BY c.centroid <=> ${p.embedding}::vector, c.cell
                                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
            FROM memory_cells AS c
           WHERE (c.region, c.user_id, c.kind) IN (${prefixes}) AND c.ready) AS c
   WHERE COALESCE(c.before, 0) < ${p.fusion.cellRows}::int8
), vector_rows AS (
  SELECT v.id, v.kind, v.pinned, v.last_useful_at, v.superseded_by, v.distance
    FROM (SELECT m.id, m.kind, m.pinned, m.last_useful_at, m.superseded_by, m.embedding <=> ${p.embedding}::vector AS distance
            FROM memories AS m
           WHERE (m.region, m.user_id, m.kind) IN (${prefixes}) AND m.cell IS NULL
          UNION ALL
          SELECT m.id, m.kind, m.pinned, m.last_useful_at, m.superseded_by, m.distance
            FROM near_cells AS n,
                 LATERAL (SELECT c.id, c.kind, c.pinned, c.last_useful_at, c.superseded_by, c.embedding <=> ${p.embedding}::vector AS distance
                            FROM memories AS c
                           WHERE c.region = ${p.scope.region} AND c.user_id = ${p.scope.userId}::uuid AND c.kind = n.kind AND c.cell = n.cell
                          OFFSET 0) AS m${lexical ? lexicalNear(p) : sql``}) AS v
   ORDER BY v.distance
   LIMIT ${p.candidates}::int4
), ${liveRanked(p, live)}`;

/**
 * The lexical arm, BM25 over the caller's own partitions from their postings and kept statistics
 * (decision 0056): a term's rarity comes from its document frequency kept per partition, the
 * average length from the partitions' kept totals: nothing is counted on read. Candidates are the
 * memories holding a rarer term; a very common term (in more than a share of the partition) is left
 * out, so its long posting list is never read. Each remaining term is read per partition: whole
 * when the partition holds it in at most `postingsPerTerm` memories (exact BM25, as the kept
 * frequency says how many postings that is), and otherwise from its flagged postings only, best
 * first and `postingsPerTerm` of them (decisions 0078, 0101). At most `POSTING_CUT.flagged` postings
 * of a term are ever flagged, so the arm reads at most terms × that many rows per partition
 * whatever the partition's size and whatever a planner does with the LIMIT. A memory scores by its
 * best passage (decision 0115): each posting counts, with its memory's frequency and length, in the
 * passages its mask names (a memory of at most PASSAGE_TERMS terms is one passage, scored as
 * before), so terms far apart in a long memory no longer add up as if they were together; it costs
 * arithmetic on the postings read, never another read. Ranked candidates are
 * checked for expiry on their rows, `candidates` of them so that expired ones cannot starve the
 * `depth` kept.
 */
export function lexicalArm(p: Params<RecallInputs>, partitions: readonly PartitionParams[], live: SqlFragment): SqlFragment {
  const l = p.lexical;
  const prefixes = join(partitions.map((partition) => partition.prefix));
  // Per partition, each rarer term's postings: all of them under the depth, read by key (the kept
  // frequency bounds them); past it the flagged ones best first (most occurrences, then the
  // shortest memory), the span of memory_terms_ranked that holds them and nothing else (decision
  // 0160: a term's flagged postings lead its keys, `best` right after the term). One LATERAL subquery per read,
  // so that each can be decorrelated into a lookup join on its own (a LATERAL over a UNION ALL
  // cannot be); OFFSET 0 keeps PostgreSQL from pulling the whole-term read up into a plain join, so
  // that its gate on the kept frequency stays a one-time filter above the index scan.
  const read = (kind: Param<string>, postings: SqlFragment) => sql`SELECT w.term, x.memory_id, x.tf, x.dl, x.passages
    FROM lex_weights AS w JOIN lex_partition_terms AS d ON d.term = w.term,
         LATERAL (${postings}) AS x
   WHERE w.rare AND d.kind = ${kind}`;
  const postings = join(
    partitions.flatMap(({ prefix, kind }) => [
      read(
        kind,
        sql`SELECT p.memory_id, p.tf, p.dl, p.passages
                      FROM memory_terms AS p
                     WHERE (p.region, p.user_id, p.kind) IN (${prefix}) AND p.term = d.term
                       AND d.kind = ${kind} AND d.df <= ${l.postingsPerTerm}::int4
                    OFFSET 0`,
      ),
      read(
        kind,
        sql`SELECT p.memory_id, p.tf, p.dl, p.passages
                      FROM memory_terms AS p
                     WHERE (p.region, p.user_id, p.kind) IN (${prefix}) AND p.term = d.term AND p.best
                       AND d.kind = ${kind} AND d.df > ${l.postingsPerTerm}::int4
                     ORDER BY p.tf DESC, p.dl, p.memory_id
                     LIMIT ${l.postingsPerTerm}::int8`,
      ),
    ]),
    '\n  UNION ALL\n  ',
  );
  // One posting's part of its memory's score: BM25's saturated, length-normalised frequency.
  const bm25 = sql`x.tf * (w.k1 + 1) / (x.tf + w.k1 * (1 - w.b + w.b * x.dl / w.average))`;
  const n = sql`CAST(COALESCE(sum(p.memories), 0) AS FLOAT8)`;
  const excess = sql`GREATEST(a.average - ${l.shortLength}::float8, 0)`;
  return sql`lex_stats AS (
  -- k1, b, the vector arm's weight and the following memories' share scaled by the share of the average length past the short length (lengthScaled in policy/ranking.ts).
  SELECT l.n, l.average, ${l.k1}::float8 * l.share AS k1, ${l.b}::float8 * l.share AS b,
         1 - ${l.vectorFade}::float8 * l.share AS vector_scale, 1 - ${l.followingFade}::float8 * l.share AS following_scale
    FROM (SELECT a.n, a.average,
                 ${excess} / GREATEST(${excess} + ${l.halfLength}::float8, 1) AS share
            FROM (SELECT ${n} AS n, GREATEST(CAST(COALESCE(sum(p.term_total), 0) AS FLOAT8) / GREATEST(${n}, 1), 1) AS average
                    FROM memory_partitions AS p WHERE (p.region, p.user_id, p.kind) IN (${prefixes})) AS a) AS l
), lex_partition_terms AS (
  SELECT d.kind, d.term, d.df
    FROM memory_partition_terms AS d
   WHERE (d.region, d.user_id, d.kind) IN (${prefixes}) AND d.term = ANY(${p.terms}::text[]) AND d.df > 0
), lex_terms AS (
  SELECT d.term, CAST(sum(d.df) AS FLOAT8) AS df FROM lex_partition_terms AS d GROUP BY d.term
), lex_weights AS (
  SELECT t.term, ln(1 + (s.n - t.df + 0.5) / (t.df + 0.5)) AS idf,
         t.df <= GREATEST(${l.commonDf}::float8, ${l.commonShare}::float8 * s.n) AS rare, s.average, s.k1, s.b
    FROM lex_terms AS t, lex_stats AS s
), lex_postings AS (
  ${postings}
), lex_passages AS (
  -- Each posting counts in every passage of its memory its term occurs in (bit i of its mask; no mask: one passage).
  -- The division in floating point and cast: on CockroachDB an integer / an integer is a DECIMAL.
  SELECT x.memory_id, g.passage, sum(w.idf * ${bm25}) AS score
    FROM lex_postings AS x JOIN lex_weights AS w ON w.term = x.term,
         LATERAL generate_series(0, LEAST(CAST(floor(CAST(x.dl - 1 AS FLOAT8) / ${PASSAGE_SIZE}::float8) AS INT4), ${LAST_PASSAGE}::int4)) AS g(passage)
   WHERE ((COALESCE(x.passages, 1) >> g.passage) & 1) = 1
   GROUP BY x.memory_id, g.passage
), lex_scores AS (
  SELECT s.memory_id AS id, max(s.score) AS score FROM lex_passages AS s GROUP BY s.memory_id
), lex_top AS (
  -- Ranked at a grain (SCORE_GRAIN, policy/ranking.ts): sums added in another order rank alike.
  SELECT s.id, s.score, floor(s.score / ${GRAIN}::float8) AS grained
    FROM lex_scores AS s ORDER BY grained DESC, s.id LIMIT ${p.candidates}::int4
), lexical_arm AS (
  SELECT l.id, row_number() OVER (ORDER BY l.grained DESC, l.id) AS rank
    FROM lex_top AS l JOIN memories AS m ON m.region = ${p.scope.region} AND m.id = l.id
   WHERE ${live}
   ORDER BY l.grained DESC, l.id
   LIMIT ${p.depth}::int4
)`;
}

/**
 * The memories that follow each ranked hit: the first `following` live ones among the
 * `followingReach` places after the hit's in its (user, origin, kind), in the order they were
 * written, scored at `share` of the hit's score (`followingShare`, with terms scaled by the length, decision 0120; decision 0082). The places are listed
 * first (materialized, so that no planner reads the origin and filters it instead), then each is
 * read by key, so a hit costs at most `followingReach` point reads of `memories_origin_seq` on every
 * engine, however many memories its origin holds. A memory without an origin (or without a place)
 * has no followers; `origin IS NOT NULL` is written out so that each engine sees the partial
 * index's predicate.
 */
export const followingHits = (p: Params<RecallInputs>, live: SqlFragment, share: SqlFragment) => sql`places AS MATERIALIZED (
  SELECT r.id AS hit, r.score, h.origin, h.kind, h.origin_seq + g.step AS place
    FROM ranked AS r
    JOIN memories AS h ON h.region = ${p.scope.region} AND h.id = r.id
   CROSS JOIN generate_series(1, ${p.fusion.followingReach}::int8) AS g(step)
   WHERE h.origin IS NOT NULL AND h.origin_seq IS NOT NULL
), following AS (
  SELECT f.id, f.score
    FROM (SELECT m.id, p.score * ${share} AS score,
                 row_number() OVER (PARTITION BY p.hit ORDER BY m.origin_seq, m.id) AS rank
            FROM places AS p
            JOIN memories AS m
              ON m.region = ${p.scope.region} AND m.user_id = ${p.scope.userId}::uuid AND m.origin IS NOT NULL AND m.origin = p.origin
             AND m.kind = p.kind AND m.origin_seq = p.place
           WHERE ${live}) AS f
   WHERE f.rank <= ${p.fusion.following}::int8
)`;
