import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** The database the connection is in. */
export const CURRENT_DATABASE = statement<Record<string, never>, { name: string }>({
  name: 'schema/current-database',
  expects: {},
  render: () => sql`SELECT current_database() AS name`,
});
