import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** The migrations the database records (decision 0071): the whole table, a few rows. */
export const APPLIED_MIGRATIONS = statement<Record<string, never>, { version: string; requires: string | null }>({
  name: 'schema/applied-migrations',
  expects: { fullScanAllowed: true },
  render: () => sql`SELECT version, requires FROM naaba_migrations`,
});
