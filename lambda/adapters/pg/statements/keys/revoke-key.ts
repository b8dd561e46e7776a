import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/**
 * A key revoked, and the live grants made with it (decision 0067): one statement, by a routine of
 * the owner's (sql/<engine>/*_key_writes.sql), since the MCP function, which revokes grants, may not
 * write api_keys (decision 0093).
 */
export const REVOKE_KEY = statement<{ keyId: string; at: Date }, { key_id: string }>({
  name: 'keys/revoke-key',
  expects: {},
  render: (p) => sql`SELECT revoked_key AS key_id FROM naaba_revoke_key(${p.keyId}::uuid, ${p.at}::timestamptz)`,
});
