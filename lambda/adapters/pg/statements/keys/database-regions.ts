import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** The regions of a CockroachDB database, where a key may live (PostgreSQL has no such list). */
export const DATABASE_REGIONS = statement<Record<string, never>, { region: string }>({
  name: 'keys/database-regions',
  expects: { fullScanAllowed: true },
  render: () => sql`SELECT region FROM [SHOW REGIONS FROM DATABASE] ORDER BY region`,
});
