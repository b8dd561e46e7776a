import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface RegisterClientInputs {
  readonly clientId: string;
  readonly clientName: string;
  /** Its redirect URIs (JSON). */
  readonly redirectUris: string;
  readonly createdAt: Date;
  /** When it lapses unless a grant uses it. */
  readonly expiresAt: Date | null;
}

/** A dynamically registered OAuth client (decision 0054). */
export const REGISTER_CLIENT = statement<RegisterClientInputs>({
  name: 'oauth/register-client',
  expects: {},
  render: (p) => sql`INSERT INTO oauth_clients (client_id, client_name, redirect_uris, created_at, expires_at)
    VALUES (${p.clientId}, ${p.clientName}, ${p.redirectUris}, ${p.createdAt}::timestamptz, ${p.expiresAt}::timestamptz)`,
});
