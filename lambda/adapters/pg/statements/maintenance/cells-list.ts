import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { type CellPartitionInputs, inPartition } from './cells-partition.js';

/** A partition's cells and how many memories each held at its last refresh (about √n rows), for the sweeper to step through a few at a time. */
export const LIST_CELLS = statement<CellPartitionInputs, { cell: number; members: number }>({
  name: 'maintenance/cells-list',
  expects: { postgresIndex: ['memory_cells_pkey'] },
  render: (p) => sql`
SELECT c.cell, c.members FROM memory_cells AS c WHERE ${inPartition(p, 'c')} AND c.ready ORDER BY c.cell`,
});
