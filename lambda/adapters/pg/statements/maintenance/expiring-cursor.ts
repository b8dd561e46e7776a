import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** Where each region's walk for a kind that gained a TTL stopped: a JSON object of `region/kind` → last id walked. */
export const EXPIRING_CURSOR = statement<Record<string, never>, { value: string }>({
  name: 'maintenance/expiring-cursor',
  expects: {},
  render: () => sql`SELECT value FROM naaba_settings WHERE name = 'expiring_cursor'`,
});
