import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface CreateGrantInputs {
  readonly keyId: string;
  readonly name: string;
  readonly userId: string;
  readonly region: string;
  readonly now: Date;
  readonly clientId: string;
  readonly accessSha256: string;
  readonly accessExpiresAt: Date;
  readonly refreshSha256: string;
  readonly refreshExpiresAt: Date;
  readonly codeSha256: string;
  /** The key typed at consent. */
  readonly grantedBy: string;
}

/**
 * The grant, its first two tokens, the code's link to it, the end of the client's earlier grants
 * made with the same key and the end of the registration's expiry: all or nothing, and nothing at
 * all unless the key typed at consent is still live.
 */
export const CREATE_GRANT = statement<CreateGrantInputs, { created: number | string; replaced: number | string }>({
  name: 'oauth/create-grant',
  expects: {},
  render: (p) => sql`WITH granting AS (
      SELECT key_id FROM api_keys WHERE key_id = ${p.grantedBy}::uuid AND revoked_at IS NULL AND client_id IS NULL
    ), earlier AS (
      UPDATE api_keys SET revoked_at = ${p.now}::timestamptz
       WHERE granted_by = ${p.grantedBy}::uuid AND client_id = ${p.clientId} AND revoked_at IS NULL AND EXISTS (SELECT 1 FROM granting)
      RETURNING key_id
    ), grant_key AS (
      INSERT INTO api_keys (key_id, token_sha256, name, user_id, region, created_at, revoked_at, client_id, granted_by)
      SELECT ${p.keyId}::uuid, NULL, ${p.name}, ${p.userId}::uuid, ${p.region}, ${p.now}::timestamptz, NULL, ${p.clientId}, key_id FROM granting
      RETURNING key_id
    ), tokens AS (
      INSERT INTO oauth_tokens (token_sha256, key_id, kind, expires_at)
      SELECT v.token_sha256, g.key_id, v.kind, v.expires_at
        FROM grant_key AS g, (VALUES (${p.accessSha256}::text, 'access', ${p.accessExpiresAt}::timestamptz), (${p.refreshSha256}::text, 'refresh', ${p.refreshExpiresAt}::timestamptz))
             AS v (token_sha256, kind, expires_at)
      RETURNING key_id
    ), linked AS (
      UPDATE oauth_codes SET key_id = ${p.keyId}::uuid
       WHERE region = ${p.region} AND code_sha256 = ${p.codeSha256} AND EXISTS (SELECT 1 FROM granting)
      RETURNING key_id
    ), kept AS (
      UPDATE oauth_clients SET expires_at = NULL
       WHERE client_id = ${p.clientId} AND expires_at IS NOT NULL AND EXISTS (SELECT 1 FROM granting)
      RETURNING client_id
    )
    SELECT (SELECT count(*) FROM grant_key)::int AS created, (SELECT count(*) FROM earlier)::int AS replaced,
           (SELECT count(*) FROM tokens)::int AS tokens, (SELECT count(*) FROM linked)::int AS linked,
           (SELECT count(*) FROM kept)::int AS kept`,
});
