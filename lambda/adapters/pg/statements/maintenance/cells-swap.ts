import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { CELLS_BUILD_PLAN, type CellPartitionInputs, inPartition, nearestCell } from './cells-partition.js';

export interface SwapCellsInputs extends CellPartitionInputs {
  /** The partition's size the new cells are built for. */
  readonly memories: number;
  /** The size its cells were for when the sweeper looked (null: none). */
  readonly cellsFor: number | null;
}

/**
 * A build's last step, one statement: every memory of the partition put in its nearest new cell,
 * the old cells removed, the new ones made ready, and the partition's row recording the memories
 * they were built for; nothing, unless the partition's cells were still as the sweeper saw them
 * when the statement began and the new ones are there. The memories' rows are written before the
 * partition's, as a writer writes them.
 */
export const SWAP_CELLS = statement<SwapCellsInputs, { built: number; placed: number }>({
  name: 'maintenance/cells-swap',
  expects: CELLS_BUILD_PLAN,
  render: (p) => sql`
WITH seen AS (
  SELECT 1 AS ok FROM memory_partitions AS p
   WHERE ${inPartition(p, 'p')} AND p.cells_for IS NOT DISTINCT FROM ${p.cellsFor}::int4
     AND EXISTS (SELECT 1 FROM memory_cells AS c WHERE ${inPartition(p, 'c')} AND NOT c.ready)
), placed AS (
  UPDATE memories AS m SET cell = ${nearestCell(p, 'm', false)}
   WHERE ${inPartition(p, 'm')} AND EXISTS (SELECT 1 FROM seen)
  RETURNING 1
), retired AS (
  DELETE FROM memory_cells AS c WHERE ${inPartition(p, 'c')} AND c.ready AND EXISTS (SELECT 1 FROM seen)
  RETURNING 1
), promoted AS (
  UPDATE memory_cells AS c SET ready = true WHERE ${inPartition(p, 'c')} AND NOT c.ready AND EXISTS (SELECT 1 FROM seen)
  RETURNING 1
), marked AS (
  UPDATE memory_partitions AS p SET cells_for = ${p.memories}::int4
   WHERE ${inPartition(p, 'p')} AND p.cells_for IS NOT DISTINCT FROM ${p.cellsFor}::int4 AND EXISTS (SELECT 1 FROM seen)
  RETURNING 1
)
SELECT (SELECT count(*) FROM marked)::int4 AS built, (SELECT count(*) FROM placed)::int4 AS placed`,
});
