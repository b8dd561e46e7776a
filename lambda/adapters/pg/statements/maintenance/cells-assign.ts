import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { type CellPartitionInputs, inPartition, nearestCell } from './cells-partition.js';

/** One bounded batch of the partition's memories without a cell (written since its cells were built) put in their nearest ready cell, and the cells' counts kept; none while it has no ready cells. */
export const ASSIGN_CELLS = statement<CellPartitionInputs & { batch: number }>({
  name: 'maintenance/cells-assign',
  expects: { postgresIndex: ['memories_uncelled', 'memory_cells_pkey'] },
  render: (p) => sql`
WITH placed AS (
  UPDATE memories AS m
     SET cell = ${nearestCell(p, 'm', true)}
   WHERE m.region = ${p.scope.region}
     AND m.id IN (SELECT u.id FROM memories AS u WHERE ${inPartition(p, 'u')} AND u.cell IS NULL LIMIT ${p.batch}::int4)
     AND EXISTS (SELECT 1 FROM memory_cells AS c WHERE ${inPartition(p, 'c')} AND c.ready)
  RETURNING m.cell
), counted AS (
  -- Each cell's count follows: one more per memory placed in it.
  UPDATE memory_cells AS c
     SET members = c.members + d.placed
    FROM (SELECT placed.cell, count(*) AS placed FROM placed GROUP BY placed.cell) AS d
   WHERE ${inPartition(p, 'c')} AND c.cell = d.cell
  RETURNING 1
)
SELECT 1 FROM placed`,
});
