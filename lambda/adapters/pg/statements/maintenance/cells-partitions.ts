import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface CellPartitionsInputs {
  readonly region: string;
  /** The last partition of the previous page, in key order. */
  readonly afterUser: string;
  readonly afterKind: string;
  readonly batch: number;
}

/**
 * One page of a region's partitions marked for cells (decision 0118), in key order: those that
 * have cells, and those whose count reached the size for them since the sweeper last unmarked
 * them. Read through `memory_partitions_cells_due`, which holds the marked rows only: a page reads
 * `batch` rows, however many small partitions the region has.
 */
export const CELL_PARTITIONS = statement<
  CellPartitionsInputs,
  { user_id: string; kind: string; memories: number; cells_for: number | null }
>({
  name: 'maintenance/cells-partitions',
  expects: { regionBatch: true, postgresIndex: 'memory_partitions_cells_due' },
  render: (p) => sql`
SELECT p.user_id::text AS user_id, p.kind, p.memories, p.cells_for
  FROM memory_partitions AS p
 WHERE p.region = ${p.region} AND p.cells_due AND (p.user_id, p.kind) > (${p.afterUser}::uuid, ${p.afterKind}::text)
 ORDER BY p.user_id, p.kind
 LIMIT ${p.batch}::int4`,
});
