import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** The type of the new-dimension column if it exists (a run of another target may have left it). */
export const REEMBED_NEXT_COLUMN = statement<Record<string, never>, { type: string }>({
  name: 'maintenance/reembed-next-column',
  expects: { fullScanAllowed: true },
  render: () => sql`SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute AS a
      WHERE a.attrelid = 'memories'::regclass AND a.attname = 'embedding_next' AND NOT a.attisdropped`,
});
