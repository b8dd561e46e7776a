import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { CELLS_BUILD_PLAN, type CellPartitionInputs, inPartition } from './cells-partition.js';

/**
 * A build's first step: what an interrupted build left removed, then `cells` cells seeded with the
 * vectors of as many of the partition's memories, by id (random, since ids are), numbered after
 * every cell the partition has.
 */
export const SEED_CELLS = statement<CellPartitionInputs & { cells: number }>({
  name: 'maintenance/cells-seed',
  expects: CELLS_BUILD_PLAN,
  render: (p) => sql`
WITH left_over AS (
  DELETE FROM memory_cells AS c WHERE ${inPartition(p, 'c')} AND NOT c.ready
  RETURNING 1
)
INSERT INTO memory_cells (region, user_id, kind, cell, centroid)
SELECT ${p.scope.region}, ${p.scope.userId}::uuid, ${p.kind},
       COALESCE((SELECT max(c.cell) + 1 FROM memory_cells AS c WHERE ${inPartition(p, 'c')}), 0)
       + CAST(row_number() OVER (ORDER BY s.id) AS INT4) - 1,
       s.embedding
  FROM (SELECT m.id, m.embedding FROM memories AS m WHERE ${inPartition(p, 'm')} ORDER BY m.id LIMIT ${p.cells}::int4) AS s`,
});
