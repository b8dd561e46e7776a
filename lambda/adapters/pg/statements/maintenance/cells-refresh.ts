import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { type CellPartitionInputs, inPartition } from './cells-partition.js';

/**
 * Some of a partition's cells (a few, about `VECTOR_CELLS.rowsPerStep` memories in all) brought up
 * to date with what they hold now: each centroid becomes the mean of its memories' vectors and its
 * count theirs, and a cell left without any goes. Each cell is read by key of `memories_cell`
 * (an `= ANY` of cells was a filter over the whole partition when the statistics were stale). So a forgotten, evicted or expired memory's vector
 * is in no centroid after the next sweep. A cell already up to date is not written (the local
 * server sweeps every 30 s, and PGlite has no autovacuum).
 */
export const REFRESH_CELLS = statement<CellPartitionInputs & { cells: readonly number[] }>({
  name: 'maintenance/cells-refresh',
  expects: { postgresIndex: ['memories_cell', 'memory_cells_pkey'] },
  render: (p) => sql`
WITH means AS (
  SELECT s.cell, avg(m.embedding) AS mean, CAST(count(*) AS INT4) AS members
    FROM unnest(${p.cells}::int4[]) AS s(cell),
         LATERAL (SELECT m.embedding FROM memories AS m WHERE ${inPartition(p, 'm')} AND m.cell = s.cell OFFSET 0) AS m
   GROUP BY s.cell
), emptied AS (
  DELETE FROM memory_cells AS c
   WHERE ${inPartition(p, 'c')} AND c.cell = ANY(${p.cells}::int4[]) AND c.ready
     AND NOT EXISTS (SELECT 1 FROM means WHERE means.cell = c.cell)
  RETURNING 1
)
UPDATE memory_cells AS c
   SET centroid = means.mean, members = means.members
  FROM means
 WHERE ${inPartition(p, 'c')} AND c.ready AND c.cell = means.cell
   AND (c.centroid IS DISTINCT FROM means.mean OR c.members <> means.members)`,
});
