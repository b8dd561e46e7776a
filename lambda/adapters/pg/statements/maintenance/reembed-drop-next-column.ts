import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** A new-dimension column an earlier run for another dimension left, removed. */
export const REEMBED_DROP_NEXT_COLUMN = statement<Record<string, never>>({
  name: 'maintenance/reembed-drop-next-column',
  expects: { fullScanAllowed: true },
  render: () => sql`ALTER TABLE memories DROP COLUMN embedding_next`,
});
