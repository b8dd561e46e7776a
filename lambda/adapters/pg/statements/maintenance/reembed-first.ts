import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** A re-embedding's first batch of rows, in (region, id) order: a walk of every row is the point. */
export const REEMBED_FIRST = statement<{ batch: number }, { region: string; id: string; content: string }>({
  name: 'maintenance/reembed-first',
  expects: { fullScanAllowed: true },
  render: (p) =>
    sql`SELECT region::text AS region, id::text AS id, content FROM memories ORDER BY region, id LIMIT ${p.batch}::int4`,
});
