import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** The isolation level a new transaction of this connection runs at. */
export const ISOLATION_LEVEL = statement<Record<string, never>, { level: string }>({
  name: 'schema/isolation-level',
  expects: {},
  render: () => sql`SELECT current_setting('transaction_isolation') AS level`,
});
