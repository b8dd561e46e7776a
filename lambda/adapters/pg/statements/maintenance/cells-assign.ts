import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { type CellPartitionInputs, inPartition } from './cells-partition.js';

/**
 * One bounded batch of the partition's memories without a cell (written since its cells were built)
 * put in their nearest ready cell, and the cells' counts kept; none while it has no ready cells.
 * The centroids are read once (materialized, about √n rows), each memory's nearest computed once.
 * The batch is the oldest, the order of `memories_uncelled` (migration 0015) and of no other index:
 * with a plain LIMIT, statistics from before the cells (every memory without one) made PostgreSQL
 * scan the table for rows it expected at once, and in id order it walked the region's primary key.
 * The rows are then written by primary key, their ids given as an array (`id = ANY(ARRAY(…))`),
 * which a planner reads by key: joined to the batch, a planner without statistics (PGlite before
 * its first ANALYZE) could scan the table; with `cell IS NULL` there too, PostgreSQL read the
 * partial index on the region alone.
 */
export const ASSIGN_CELLS = statement<CellPartitionInputs & { batch: number }>({
  name: 'maintenance/cells-assign',
  expects: { postgresIndex: ['memories_uncelled', 'memory_cells_pkey'] },
  render: (p) => sql`
WITH centroids AS MATERIALIZED (
  SELECT c.cell, c.centroid FROM memory_cells AS c WHERE ${inPartition(p, 'c')} AND c.ready
), nearest AS MATERIALIZED (
  SELECT u.id, n.cell
    FROM (SELECT u.id, u.embedding FROM memories AS u WHERE ${inPartition(p, 'u')} AND u.cell IS NULL
           ORDER BY u.created_at, u.id
           LIMIT ${p.batch}::int4) AS u,
         LATERAL (SELECT c.cell FROM centroids AS c ORDER BY c.centroid <=> u.embedding, c.cell LIMIT 1) AS n
), counted AS (
  -- Each cell's count follows: one more per memory placed in it.
  UPDATE memory_cells AS c
     SET members = c.members + d.placed
    FROM (SELECT nearest.cell, count(*) AS placed FROM nearest GROUP BY nearest.cell) AS d
   WHERE ${inPartition(p, 'c')} AND c.cell = d.cell
  RETURNING 1
)
UPDATE memories AS m
   SET cell = nearest.cell
  FROM nearest
 WHERE m.region = ${p.scope.region} AND m.id = ANY(ARRAY(SELECT n.id FROM nearest AS n)) AND m.id = nearest.id
RETURNING 1`,
});
