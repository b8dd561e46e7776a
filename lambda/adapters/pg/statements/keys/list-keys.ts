import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { KEY_COLUMNS, type KeyRow } from './key-row.js';

/** Every key, oldest first, with the OAuth client that holds a grant (`naaba list-keys`): a full scan is the point. */
export const LIST_KEYS = statement<Record<string, never>, KeyRow>({
  name: 'keys/list-keys',
  expects: { fullScanAllowed: true },
  render: () => sql`SELECT ${KEY_COLUMNS}, c.client_name FROM api_keys k LEFT JOIN oauth_clients c ON c.client_id = k.client_id
            ORDER BY k.created_at, k.key_id`,
});
