import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { type CellPartitionInputs, inPartition } from './cells-partition.js';

/**
 * One step of a k-means refinement (decision 0100): the memories of the given cells (a few, about
 * `VECTOR_CELLS.rowsPerStep` memories in all; of a cell larger than that, `take` of them after the
 * first `skip`, so that no step grows with a cell) each moved to its nearest cell, those already there
 * left unwritten, and each cell's count kept. The centroids are read once (materialized, about √n
 * rows), each memory's nearest computed once; each cell is read by key of `memories_cell` (an
 * `= ANY` of cells was a filter over the whole partition when the statistics were stale); the moved
 * rows are written by primary key, their ids given as an array (cells-assign.ts says why). The
 * sweeper steps through all of a partition's cells, then refreshes the centroids
 * (cells-refresh.ts): one round. Every memory is in exactly one cell throughout, so recall never
 * misses one.
 */
export const REFINE_CELLS = statement<CellPartitionInputs & { cells: readonly number[]; skip: number; take: number }>({
  name: 'maintenance/cells-refine',
  expects: { postgresIndex: ['memories_cell', 'memory_cells_pkey'] },
  render: (p) => sql`
WITH centroids AS MATERIALIZED (
  SELECT c.cell, c.centroid FROM memory_cells AS c WHERE ${inPartition(p, 'c')} AND c.ready
), moved AS MATERIALIZED (
  SELECT x.id, n.cell, x.was
    FROM unnest(${p.cells}::int4[]) AS s(cell),
         LATERAL (SELECT m.id, m.embedding, m.cell AS was FROM memories AS m
                   WHERE ${inPartition(p, 'm')} AND m.cell = s.cell
                   OFFSET ${p.skip}::int4 LIMIT ${p.take}::int4) AS x,
         LATERAL (SELECT c.cell FROM centroids AS c ORDER BY c.centroid <=> x.embedding, c.cell LIMIT 1) AS n
   WHERE n.cell <> x.was
), counted AS (
  -- Each cell's count follows its memories: one less where one left, one more where it went.
  UPDATE memory_cells AS c
     SET members = GREATEST(c.members + d.delta, 0)
    FROM (SELECT t.cell, sum(t.delta) AS delta
            FROM (SELECT moved.cell, 1 AS delta FROM moved UNION ALL SELECT moved.was, -1 FROM moved) AS t
           GROUP BY t.cell) AS d
   WHERE ${inPartition(p, 'c')} AND c.cell = d.cell
  RETURNING 1
)
UPDATE memories AS m
   SET cell = moved.cell
  FROM moved
 WHERE m.region = ${p.scope.region} AND m.id = ANY(ARRAY(SELECT v.id FROM moved AS v)) AND m.id = moved.id
RETURNING 1`,
});
