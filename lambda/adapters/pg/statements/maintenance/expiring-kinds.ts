import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** Which kinds each region's sweeper has put into the expiry index: a JSON object of region → kinds. */
export const EXPIRING_KINDS = statement<Record<string, never>, { value: string }>({
  name: 'maintenance/expiring-kinds',
  expects: {},
  render: () => sql`SELECT value FROM naaba_settings WHERE name = 'expiring_kinds'`,
});
