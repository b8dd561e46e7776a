import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** The swap's second step: the new column becomes `embedding`. */
export const REEMBED_RENAME_COLUMN = statement<Record<string, never>>({
  name: 'maintenance/reembed-rename-column',
  expects: { fullScanAllowed: true },
  render: () => sql`ALTER TABLE memories RENAME COLUMN embedding_next TO embedding`,
});
