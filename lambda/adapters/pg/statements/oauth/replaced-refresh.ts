import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** The grant of a refresh token that was already replaced: presenting it again is reuse. */
export const REPLACED_REFRESH = statement<{ refreshSha256: string }, { key_id: string }>({
  name: 'oauth/replaced-refresh',
  expects: {},
  render: (p) => sql`SELECT key_id::text AS key_id FROM oauth_tokens
     WHERE token_sha256 = ${p.refreshSha256} AND kind = 'refresh' AND replaced_at IS NOT NULL`,
});
