import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/**
 * One region's kinds recorded in the object `expiring-kinds` reads, in one UPDATE of the row
 * migration 0005 seeded, so that two regions' sweepers never lose each other's entry.
 */
export const RECORD_EXPIRING_KINDS = statement<{ region: string; kinds: string }>({
  name: 'maintenance/record-expiring-kinds',
  expects: {},
  render: (p) => sql`
UPDATE naaba_settings SET value = CAST(CAST(value AS JSONB) || jsonb_build_object(${p.region}::text, CAST(${p.kinds} AS JSONB)) AS TEXT)
 WHERE name = 'expiring_kinds'`,
});
