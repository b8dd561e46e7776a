import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** A change of dimension's swap, first step: the old vectors go (inside the swap's transaction). */
export const REEMBED_DROP_OLD_COLUMN = statement<Record<string, never>>({
  name: 'maintenance/reembed-drop-old-column',
  expects: { fullScanAllowed: true },
  render: () => sql`ALTER TABLE memories DROP COLUMN embedding`,
});
