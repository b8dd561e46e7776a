import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** A key revoked, and the live grants made with it (decision 0067): one statement. */
export const REVOKE_KEY = statement<{ keyId: string; at: Date }, { key_id: string }>({
  name: 'keys/revoke-key',
  expects: {},
  render: (p) => sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${p.at}::timestamptz)
            WHERE key_id = ${p.keyId}::uuid OR (granted_by = ${p.keyId}::uuid AND revoked_at IS NULL)
           RETURNING key_id::text AS key_id`,
});
