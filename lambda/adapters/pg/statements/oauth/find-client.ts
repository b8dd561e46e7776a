import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface ClientRow {
  readonly client_id: string;
  readonly client_name: string;
  readonly redirect_uris: string;
  readonly created_at: Date;
  readonly expires_at: Date | null;
}

/** A registered client; a lapsed unused registration is as unknown as one never made. */
export const FIND_CLIENT = statement<{ clientId: string; now: Date }, ClientRow>({
  name: 'oauth/find-client',
  expects: {},
  render: (p) => sql`SELECT client_id, client_name, redirect_uris, created_at, expires_at FROM oauth_clients
     WHERE client_id = ${p.clientId} AND (expires_at IS NULL OR expires_at > ${p.now}::timestamptz)`,
});
