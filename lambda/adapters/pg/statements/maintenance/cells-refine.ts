import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { CELLS_BUILD_PLAN, type CellPartitionInputs, inPartition, nearestCell } from './cells-partition.js';

/** One k-means refinement of the cells being built: each centroid becomes the mean of the vectors nearest it (a cell none is nearest keeps its own). */
export const REFINE_CELLS = statement<CellPartitionInputs>({
  name: 'maintenance/cells-refine',
  expects: CELLS_BUILD_PLAN,
  render: (p) => sql`
UPDATE memory_cells AS c
   SET centroid = a.mean
  FROM (SELECT n.cell, avg(n.embedding) AS mean
          FROM (SELECT m.embedding, ${nearestCell(p, 'm', false)} AS cell
                  FROM memories AS m WHERE ${inPartition(p, 'm')}) AS n
         GROUP BY n.cell) AS a
 WHERE ${inPartition(p, 'c')} AND NOT c.ready AND c.cell = a.cell`,
});
