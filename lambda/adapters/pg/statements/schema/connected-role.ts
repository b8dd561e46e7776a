import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** Who the connection is, and whether it could change the schema: what the functions' secret must not allow. */
export const CONNECTED_ROLE = statement<Record<string, never>, { role: string; can_create: boolean; owns_tables: boolean }>({
  name: 'schema/connected-role',
  expects: { fullScanAllowed: true },
  render: () => sql`SELECT current_user AS role, has_schema_privilege('public', 'CREATE') AS can_create,
            EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = 'public' AND tableowner = current_user) AS owns_tables`,
});
