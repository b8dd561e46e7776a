import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** Whether any memory is stored: reads at most one row, and runs only when the recorded embedder or analyzer differs. */
export const ANY_MEMORY = statement<Record<string, never>, { found: boolean }>({
  name: 'schema/any-memory',
  expects: { fullScanAllowed: true },
  render: () => sql`SELECT EXISTS (SELECT 1 FROM memories) AS found`,
});
