import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** The grant a token of the client belongs to (revocation by token). */
export const GRANT_OF = statement<{ tokenSha256: string; clientId: string }, { key_id: string }>({
  name: 'oauth/grant-of',
  expects: {},
  render: (p) => sql`SELECT t.key_id::text AS key_id FROM oauth_tokens t JOIN api_keys k ON k.key_id = t.key_id
     WHERE t.token_sha256 = ${p.tokenSha256} AND k.client_id = ${p.clientId}`,
});
