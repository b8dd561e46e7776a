import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { type CellPartitionInputs, inPartition } from './cells-partition.js';

/**
 * A build's first step (decision 0100): `cells` more cells for the partition, numbered after every
 * cell it has, ready at once (with no memory counted, recall reads each one it reaches whole, so
 * none is missed), seeded with the vectors of memories without a cell yet (the oldest `window` of
 * them, in the order memories_uncelled hands them over, and of those a random `cells` by id, since
 * ids are random; the sweeper seeds a few before each batch it places, so seeds come from the whole
 * partition), then, in a partition that has cells, of one memory of each of its largest cells
 * (which the new cell splits). Every source is read a bounded number of rows deep: no statement of
 * a build reads the whole partition. What an interrupted build of an older version left (cells
 * never made ready) goes.
 */
export const SEED_CELLS = statement<CellPartitionInputs & { cells: number; window: number }>({
  name: 'maintenance/cells-seed',
  expects: { postgresIndex: ['memories_uncelled', 'memories_cell', 'memory_cells_pkey'] },
  render: (p) => sql`
WITH left_over AS (
  DELETE FROM memory_cells AS c WHERE ${inPartition(p, 'c')} AND NOT c.ready
  RETURNING 1
), largest AS MATERIALIZED (
  SELECT c.cell, row_number() OVER (ORDER BY c.members DESC, c.cell) AS rank
    FROM memory_cells AS c WHERE ${inPartition(p, 'c')} AND c.ready
   ORDER BY c.members DESC, c.cell
   LIMIT ${p.cells}::int4
), seeds AS (
  SELECT s.embedding, s.source, s.rank
    FROM ((SELECT u.embedding, 0 AS source, row_number() OVER (ORDER BY u.id) AS rank
             FROM (SELECT u.id, u.embedding FROM memories AS u WHERE ${inPartition(p, 'u')} AND u.cell IS NULL
                    ORDER BY u.created_at, u.id
                    LIMIT ${p.window}::int4) AS u
            ORDER BY u.id
            LIMIT ${p.cells}::int4)
          UNION ALL
          SELECT x.embedding, 1 AS source, l.rank
            FROM largest AS l,
                 LATERAL (SELECT m.embedding FROM memories AS m WHERE ${inPartition(p, 'm')} AND m.cell = l.cell
                          OFFSET 1 LIMIT 1) AS x) AS s
   ORDER BY s.source, s.rank
   LIMIT ${p.cells}::int4
)
INSERT INTO memory_cells (region, user_id, kind, cell, centroid, ready)
SELECT ${p.scope.region}, ${p.scope.userId}::uuid, ${p.kind},
       COALESCE((SELECT max(c.cell) + 1 FROM memory_cells AS c WHERE ${inPartition(p, 'c')}), 0)
       + CAST(row_number() OVER (ORDER BY s.source, s.rank) AS INT4) - 1,
       s.embedding, true
  FROM seeds AS s`,
});
