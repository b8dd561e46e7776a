import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** How many rows a re-embedding rewrites: every memory of every region. */
export const REEMBED_TOTAL = statement<Record<string, never>, { n: number }>({
  name: 'maintenance/reembed-total',
  expects: { fullScanAllowed: true },
  render: () => sql`SELECT count(*)::int4 AS n FROM memories`,
});
