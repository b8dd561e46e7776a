import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/**
 * Ends these registrations now, where no grant has used them yet (decision 0106): the oldest
 * unused ones past the local server's bound. A used registration (no expiry) is left alone.
 */
export const LAPSE_UNUSED_CLIENTS = statement<{ clientIds: string[]; at: Date }, { client_id: string }>({
  name: 'oauth/lapse-unused-clients',
  expects: {},
  render: (p) => sql`UPDATE oauth_clients SET expires_at = ${p.at}::timestamptz
     WHERE client_id = ANY(${p.clientIds}::text[]) AND expires_at > ${p.at}::timestamptz
     RETURNING client_id`,
});
