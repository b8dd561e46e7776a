import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/**
 * Every partition's vector cells removed (decision 0083), on PostgreSQL and PGlite: a re-embedding
 * makes their centroids meaningless. Safe to run again.
 */
export const REEMBED_CLEAR_CELLS = statement<Record<string, never>>({
  name: 'maintenance/reembed-clear-cells',
  expects: { fullScanAllowed: true },
  render: () => sql`
WITH gone AS (DELETE FROM memory_cells RETURNING 1),
     unplaced AS (UPDATE memories SET cell = NULL WHERE cell IS NOT NULL RETURNING 1)
UPDATE memory_partitions SET cells_for = NULL WHERE cells_for IS NOT NULL`,
});
