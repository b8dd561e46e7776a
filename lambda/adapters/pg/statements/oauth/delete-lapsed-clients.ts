import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** One bounded batch of registrations no grant used, lapsed before the cutoff. */
export const DELETE_LAPSED_CLIENTS = statement<{ before: Date; batch: number }>({
  name: 'oauth/delete-lapsed-clients',
  expects: { regionBatch: true },
  render: (p) => sql`DELETE FROM oauth_clients WHERE client_id IN (
      SELECT client_id FROM oauth_clients WHERE expires_at < ${p.before}::timestamptz LIMIT ${p.batch}::int)
    RETURNING 1`,
});
