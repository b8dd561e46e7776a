import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** One bounded batch of tokens past their expiry. Every region's sweeper runs it; deleting a row twice is deleting it once. */
export const DELETE_EXPIRED_TOKENS = statement<{ before: Date; batch: number }>({
  name: 'oauth/delete-expired-tokens',
  expects: { regionBatch: true },
  render: (p) => sql`DELETE FROM oauth_tokens WHERE token_sha256 IN (
      SELECT token_sha256 FROM oauth_tokens WHERE expires_at < ${p.before}::timestamptz LIMIT ${p.batch}::int)
    RETURNING 1`,
});
