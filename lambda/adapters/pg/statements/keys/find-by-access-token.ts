import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { KEY_COLUMNS, type KeyRow } from './key-row.js';

/** The grant (a key) an unexpired OAuth access token's SHA-256 names. */
export const FIND_KEY_BY_ACCESS_TOKEN = statement<{ tokenSha256: string; now: Date }, KeyRow>({
  name: 'keys/find-by-access-token',
  expects: {},
  render: (p) => sql`SELECT ${KEY_COLUMNS} FROM oauth_tokens t JOIN api_keys k ON k.key_id = t.key_id
            WHERE t.token_sha256 = ${p.tokenSha256} AND t.kind = 'access' AND t.expires_at > ${p.now}::timestamptz`,
});
