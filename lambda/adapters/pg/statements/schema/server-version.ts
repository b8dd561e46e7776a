import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** What the server says it is: tells CockroachDB from PostgreSQL, and its version. */
export const SERVER_VERSION = statement<Record<string, never>, { version: string }>({
  name: 'schema/server-version',
  expects: {},
  render: () => sql`SELECT version() AS version`,
});
