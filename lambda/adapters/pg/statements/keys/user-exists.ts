import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** Whether a user has a key in a region: a second agent's key joins an existing user. */
export const USER_EXISTS = statement<{ userId: string; region: string }>({
  name: 'keys/user-exists',
  expects: {},
  render: (p) => sql`SELECT 1 FROM api_keys WHERE user_id = ${p.userId}::uuid AND region = ${p.region} LIMIT 1`,
});
