import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** Whether a login role exists (the runtime role is created once by an administrator). */
export const ROLE_EXISTS = statement<{ role: string }, { found: boolean }>({
  name: 'schema/role-exists',
  expects: { fullScanAllowed: true },
  render: (p) => sql`SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ${p.role}) AS found`,
});
