import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** One bounded batch of a region's codes past their expiry. */
export const DELETE_EXPIRED_CODES = statement<{ region: string; before: Date; batch: number }>({
  name: 'oauth/delete-expired-codes',
  expects: { regionBatch: true },
  render: (p) => sql`DELETE FROM oauth_codes WHERE region = ${p.region} AND code_sha256 IN (
      SELECT code_sha256 FROM oauth_codes WHERE region = ${p.region} AND expires_at < ${p.before}::timestamptz LIMIT ${p.batch}::int)
    RETURNING 1`,
});
