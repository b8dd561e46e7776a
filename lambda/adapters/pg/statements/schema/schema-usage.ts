import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** Whether the login may use the schema the tables live in: without it, a table is "not found" rather than "permission denied". */
export const SCHEMA_USAGE = statement<Record<string, never>, { usage: boolean }>({
  name: 'schema/schema-usage',
  expects: {},
  render: () => sql`SELECT has_schema_privilege('public', 'USAGE') AS usage`,
});
