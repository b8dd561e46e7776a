import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface CellPartitionsInputs {
  readonly region: string;
  /** Partitions of at least this many memories, or that have cells. */
  readonly from: number;
  /** The last partition of the previous page, in key order. */
  readonly afterUser: string;
  readonly afterKind: string;
  readonly batch: number;
}

/**
 * One page of a region's partitions that have cells or hold at least `from` memories, in key order.
 * Which partitions grew or shrank is in their rows only: each sweep walks the region's.
 */
export const CELL_PARTITIONS = statement<
  CellPartitionsInputs,
  { user_id: string; kind: string; memories: number; cells_for: number | null }
>({
  name: 'maintenance/cells-partitions',
  expects: { regionBatch: true, fullScanAllowed: true },
  render: (p) => sql`
SELECT p.user_id::text AS user_id, p.kind, p.memories, p.cells_for
  FROM memory_partitions AS p
 WHERE p.region = ${p.region} AND (p.user_id, p.kind) > (${p.afterUser}::uuid, ${p.afterKind}::text) AND p.kind <> ''
   AND (p.memories >= ${p.from}::int4 OR p.cells_for IS NOT NULL)
 ORDER BY p.user_id, p.kind
 LIMIT ${p.batch}::int4`,
});
