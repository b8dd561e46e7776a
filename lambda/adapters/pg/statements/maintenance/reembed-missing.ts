import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** Rows whose vector of the new dimension is still missing (written behind the cursor, or left by a stop). */
export const REEMBED_MISSING = statement<{ batch: number }, { region: string; id: string; content: string }>({
  name: 'maintenance/reembed-missing',
  expects: { fullScanAllowed: true },
  render: (p) => sql`SELECT region::text AS region, id::text AS id, content FROM memories
 WHERE embedding_next IS NULL ORDER BY region, id LIMIT ${p.batch}::int4`,
});
