import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { type CellPartitionInputs, inPartition } from './cells-partition.js';

/** A partition's cells removed and its memories read exactly again, unless its cells were no longer for `cellsFor` memories when the statement began. */
export const DROP_CELLS = statement<CellPartitionInputs & { cellsFor: number }, { dropped: number }>({
  name: 'maintenance/cells-drop',
  expects: { postgresIndex: ['memories_cell', 'memory_cells_pkey'] },
  render: (p) => sql`
WITH marked AS (
  UPDATE memory_partitions AS p SET cells_for = NULL WHERE ${inPartition(p, 'p')} AND p.cells_for = ${p.cellsFor}::int4
  RETURNING 1
), gone AS (
  DELETE FROM memory_cells AS c WHERE ${inPartition(p, 'c')} AND EXISTS (SELECT 1 FROM marked)
  RETURNING 1
), cleared AS (
  UPDATE memories AS m SET cell = NULL WHERE ${inPartition(p, 'm')} AND m.cell IS NOT NULL AND EXISTS (SELECT 1 FROM marked)
  RETURNING 1
)
SELECT (SELECT count(*) FROM marked)::int4 AS dropped`,
});
