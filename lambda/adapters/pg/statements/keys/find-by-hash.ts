import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { KEY_COLUMNS, type KeyRow } from './key-row.js';

/** The key a bearer token's SHA-256 names (the authorizer's one read). The hash is only ever compared. */
export const FIND_KEY_BY_HASH = statement<{ tokenSha256: string }, KeyRow>({
  name: 'keys/find-by-hash',
  expects: {},
  render: (p) => sql`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.token_sha256 = ${p.tokenSha256}`,
});
