import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { type CellPartitionInputs, inPartition } from './cells-partition.js';

export interface CellsBuiltInputs extends CellPartitionInputs {
  /** The partition's size the cells were built for. */
  readonly memories: number;
  /** The size its cells were for when the sweeper looked (null: none). */
  readonly cellsFor: number | null;
}

/**
 * A build's last step: the partition's row records the size its cells were built for, unless
 * another sweeper recorded a build since the sweeper looked (then nothing), and stays marked for
 * the sweeper's walk while it has them (decision 0118).
 */
export const CELLS_BUILT = statement<CellsBuiltInputs, { built: number }>({
  name: 'maintenance/cells-built',
  expects: { postgresIndex: ['memory_partitions_pkey'] },
  render: (p) => sql`
WITH marked AS (
  UPDATE memory_partitions AS p SET cells_for = ${p.memories}::int4, cells_due = true
   WHERE ${inPartition(p, 'p')} AND p.cells_for IS NOT DISTINCT FROM ${p.cellsFor}::int4
  RETURNING 1
)
SELECT (SELECT count(*) FROM marked)::int4 AS built`,
});
