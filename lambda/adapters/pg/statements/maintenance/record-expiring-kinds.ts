import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/**
 * One region's kinds in the expiry index recorded in its own row of `sweeper_state` (decision
 * 0151): a region's sweeper writes no row another region's sweeper writes.
 */
export const RECORD_EXPIRING_KINDS = statement<{ region: string; kinds: string }>({
  name: 'maintenance/record-expiring-kinds',
  expects: {},
  render: (p) => sql`
INSERT INTO sweeper_state (region, name, value) VALUES (${p.region}, 'expiring_kinds', ${p.kinds})
ON CONFLICT (region, name) DO UPDATE SET value = excluded.value`,
});
