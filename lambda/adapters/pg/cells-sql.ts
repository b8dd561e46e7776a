/**
 * The statements that keep a large partition's cells on PostgreSQL and PGlite (decision 0083),
 * all run by the sweeper. $1 region, $2 user, $3 kind in each per-partition statement. A memory's
 * cell is its nearest centroid by cosine distance, ties to the lower cell; k-means runs in the
 * database, so no vector leaves it. A build works on cells that are not ready, which recall never
 * reads, and one statement then puts every memory in them and makes them the partition's cells:
 * no reader ever sees half a build, on an engine with transactions or without (PGlite's session).
 */

const PARTITION = (alias: string) => `${alias}.region = $1 AND ${alias}.user_id = $2::uuid AND ${alias}.kind = $3`;

/** A memory's nearest cell of its partition, among the ready cells or those being built. */
const NEAREST_CELL = (memory: string, ready: boolean) => `(SELECT x.cell FROM memory_cells AS x
                 WHERE ${PARTITION('x')} AND ${ready ? '' : 'NOT '}x.ready
                 ORDER BY x.centroid <=> ${memory}.embedding, x.cell
                 LIMIT 1)`;

/**
 * One page of a region's partitions that have cells, or hold at least `$2` memories, after
 * ($3 user, $4 kind) in key order; $5 the page's size. Walks the partition rows' primary key.
 */
export const CELL_PARTITIONS = `
SELECT p.user_id::text AS user_id, p.kind, p.memories, p.cells_for
  FROM memory_partitions AS p
 WHERE p.region = $1 AND (p.user_id, p.kind) > ($3::uuid, $4::text) AND p.kind <> ''
   AND (p.memories >= $2::int4 OR p.cells_for IS NOT NULL)
 ORDER BY p.user_id, p.kind
 LIMIT $5::int4`;

/**
 * A build's first step: what an interrupted build left removed, then $4 cells seeded with the
 * vectors of as many of the partition's memories, by id (random, since ids are), numbered after
 * every cell the partition has.
 */
export const SEED_CELLS = `
WITH left_over AS (
  DELETE FROM memory_cells AS c WHERE ${PARTITION('c')} AND NOT c.ready
  RETURNING 1
)
INSERT INTO memory_cells (region, user_id, kind, cell, centroid)
SELECT $1, $2::uuid, $3,
       COALESCE((SELECT max(c.cell) + 1 FROM memory_cells AS c WHERE ${PARTITION('c')}), 0)
       + CAST(row_number() OVER (ORDER BY s.id) AS INT4) - 1,
       s.embedding
  FROM (SELECT m.id, m.embedding FROM memories AS m WHERE ${PARTITION('m')} ORDER BY m.id LIMIT $4::int4) AS s`;

/**
 * One k-means refinement of the cells being built: each centroid becomes the mean of the vectors
 * nearest it (a cell none is nearest keeps its own).
 */
export const REFINE_CELLS = `
UPDATE memory_cells AS c
   SET centroid = a.mean
  FROM (SELECT n.cell, avg(n.embedding) AS mean
          FROM (SELECT m.embedding, ${NEAREST_CELL('m', false)} AS cell
                  FROM memories AS m WHERE ${PARTITION('m')}) AS n
         GROUP BY n.cell) AS a
 WHERE ${PARTITION('c')} AND NOT c.ready AND c.cell = a.cell`;

/**
 * A build's last step, one statement: every memory of the partition put in its nearest new cell,
 * the old cells removed, the new ones made ready, and the partition's row recording the $4
 * memories they were built for; nothing, unless the partition's cells were still for $5 (null:
 * none) when the statement began and the new ones are there. The memories' rows are written before
 * the partition's, as a writer writes them.
 */
export const SWAP_CELLS = `
WITH seen AS (
  SELECT 1 AS ok FROM memory_partitions AS p
   WHERE ${PARTITION('p')} AND p.cells_for IS NOT DISTINCT FROM $5::int4
     AND EXISTS (SELECT 1 FROM memory_cells AS c WHERE ${PARTITION('c')} AND NOT c.ready)
), placed AS (
  UPDATE memories AS m SET cell = ${NEAREST_CELL('m', false)}
   WHERE ${PARTITION('m')} AND EXISTS (SELECT 1 FROM seen)
  RETURNING 1
), retired AS (
  DELETE FROM memory_cells AS c WHERE ${PARTITION('c')} AND c.ready AND EXISTS (SELECT 1 FROM seen)
  RETURNING 1
), promoted AS (
  UPDATE memory_cells AS c SET ready = true WHERE ${PARTITION('c')} AND NOT c.ready AND EXISTS (SELECT 1 FROM seen)
  RETURNING 1
), marked AS (
  UPDATE memory_partitions AS p SET cells_for = $4::int4
   WHERE ${PARTITION('p')} AND p.cells_for IS NOT DISTINCT FROM $5::int4 AND EXISTS (SELECT 1 FROM seen)
  RETURNING 1
)
SELECT (SELECT count(*) FROM marked)::int4 AS built, (SELECT count(*) FROM placed)::int4 AS placed`;

/**
 * A partition's cells removed and its memories read exactly again, unless its cells were no longer
 * for $4 memories when the statement began: one statement.
 */
export const DROP_CELLS = `
WITH marked AS (
  UPDATE memory_partitions AS p SET cells_for = NULL WHERE ${PARTITION('p')} AND p.cells_for = $4::int4
  RETURNING 1
), gone AS (
  DELETE FROM memory_cells AS c WHERE ${PARTITION('c')} AND EXISTS (SELECT 1 FROM marked)
  RETURNING 1
), cleared AS (
  UPDATE memories AS m SET cell = NULL WHERE ${PARTITION('m')} AND m.cell IS NOT NULL AND EXISTS (SELECT 1 FROM marked)
  RETURNING 1
)
SELECT (SELECT count(*) FROM marked)::int4 AS dropped`;

/**
 * One bounded batch ($4) of the partition's memories without a cell (written since its cells were
 * built) put in their nearest ready cell; none while the partition has no ready cells.
 */
export const ASSIGN_CELLS = `
UPDATE memories AS m
   SET cell = ${NEAREST_CELL('m', true)}
 WHERE m.region = $1
   AND m.id IN (SELECT u.id FROM memories AS u WHERE ${PARTITION('u')} AND u.cell IS NULL LIMIT $4::int4)
   AND EXISTS (SELECT 1 FROM memory_cells AS c WHERE ${PARTITION('c')} AND c.ready)
RETURNING 1`;

/**
 * A partition's ready cells brought up to date with what they hold now: each centroid becomes the
 * mean of its memories' vectors, and a cell left without any goes. So a forgotten, evicted or
 * expired memory's vector is in no centroid after the next sweep. A centroid that is already the
 * mean is not written (the local server sweeps every 30 s, and PGlite has no autovacuum).
 */
export const REFRESH_CELLS = `
WITH means AS (
  SELECT m.cell, avg(m.embedding) AS mean
    FROM memories AS m WHERE ${PARTITION('m')} AND m.cell IS NOT NULL
   GROUP BY m.cell
), emptied AS (
  DELETE FROM memory_cells AS c
   WHERE ${PARTITION('c')} AND c.ready AND NOT EXISTS (SELECT 1 FROM means WHERE means.cell = c.cell)
  RETURNING 1
)
UPDATE memory_cells AS c
   SET centroid = means.mean
  FROM means
 WHERE ${PARTITION('c')} AND c.ready AND c.cell = means.cell AND c.centroid IS DISTINCT FROM means.mean`;
