import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** The swap's last step: every memory has a vector again. */
export const REEMBED_REQUIRE_VECTORS = statement<Record<string, never>>({
  name: 'maintenance/reembed-require-vectors',
  expects: { fullScanAllowed: true },
  render: () => sql`ALTER TABLE memories ALTER COLUMN embedding SET NOT NULL`,
});
