import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** How many rows an interrupted re-embedding had done: those up to its cursor. */
export const REEMBED_DONE = statement<{ region: string; id: string }, { n: number }>({
  name: 'maintenance/reembed-done',
  expects: { fullScanAllowed: true },
  render: (p) => sql`SELECT count(*)::int4 AS n FROM memories WHERE (region, id) <= (${p.region}, ${p.id}::uuid)`,
});
