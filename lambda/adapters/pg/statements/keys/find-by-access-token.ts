import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { KEY_COLUMNS, type KeyRow } from './key-row.js';

/**
 * The longest an access token may still have to live when presented: its hour (the owner's routines
 * bound every token they write to it) and five minutes for clocks that differ. A row expiring later
 * was not written by those routines, so it is no credential (decision 0130).
 */
export const ACCESS_TOKEN_LONGEST_MS = (3_600 + 300) * 1_000;

/**
 * The grant (a key with a client) an unexpired OAuth access token's SHA-256 names, when the token's
 * expiry is within the bound: never a person's key, never a token that lives longer than an hour.
 */
export const FIND_KEY_BY_ACCESS_TOKEN = statement<{ tokenSha256: string; now: Date; latest: Date }, KeyRow>({
  name: 'keys/find-by-access-token',
  expects: {},
  render: (p) => sql`SELECT ${KEY_COLUMNS} FROM oauth_tokens t JOIN api_keys k ON k.key_id = t.key_id
            WHERE t.token_sha256 = ${p.tokenSha256} AND t.kind = 'access' AND k.client_id IS NOT NULL
              AND t.expires_at > ${p.now}::timestamptz AND t.expires_at <= ${p.latest}::timestamptz`,
});
