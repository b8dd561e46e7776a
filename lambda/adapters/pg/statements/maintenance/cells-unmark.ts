import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { type CellPartitionInputs, inPartition } from './cells-partition.js';

/**
 * A marked partition (decision 0118) leaves the sweeper's walk: when it has no cells and holds
 * fewer than `from` memories as the statement finds its row, so that a write that brought it back
 * to `from` meanwhile keeps it marked. Read by its key (the sweeper found it marked), not through
 * the marked partitions' index, whichever the planner thinks smaller.
 */
export const UNMARK_CELLS = statement<CellPartitionInputs & { from: number }, { unmarked: number }>({
  name: 'maintenance/cells-unmark',
  expects: { postgresIndex: ['memory_partitions_pkey'] },
  render: (p) => sql`
WITH unmarked AS (
  UPDATE memory_partitions AS p SET cells_due = false
   WHERE ${inPartition(p, 'p')} AND p.cells_for IS NULL AND p.memories < ${p.from}::int4
  RETURNING 1
)
SELECT (SELECT count(*) FROM unmarked)::int4 AS unmarked`,
});
