import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface RotateInputs {
  readonly refreshSha256: string;
  readonly now: Date;
  readonly clientId: string;
  readonly accessSha256: string;
  readonly accessExpiresAt: Date;
  readonly nextRefreshSha256: string;
  readonly nextRefreshExpiresAt: Date;
  /** A token replaced after this instant may still be used once more (a client's lost answer). */
  readonly graceSince: Date;
}

/**
 * A refresh token of a live grant of the client replaced by a new pair, in one statement. The
 * token is live and not yet replaced, or replaced after the grace start and still unexpired (no
 * replacement of it has been used). Using a token ends its parent and its siblings (they expire
 * now), so a parent presented again after that is reuse.
 */
export const ROTATE = statement<RotateInputs, { issued: number | string }>({
  name: 'oauth/rotate',
  expects: {},
  render: (p) => sql`WITH presented AS (
      SELECT t.token_sha256, t.key_id, t.parent_sha256, t.replaced_at
        FROM oauth_tokens AS t
       WHERE t.token_sha256 = ${p.refreshSha256} AND t.kind = 'refresh' AND t.expires_at > ${p.now}::timestamptz
         AND (t.replaced_at IS NULL OR t.replaced_at > ${p.graceSince}::timestamptz)
         AND t.key_id IN (SELECT key_id FROM api_keys WHERE client_id = ${p.clientId} AND revoked_at IS NULL)
    ), old AS (
      UPDATE oauth_tokens SET replaced_at = ${p.now}::timestamptz
       WHERE token_sha256 IN (SELECT token_sha256 FROM presented WHERE replaced_at IS NULL)
      RETURNING token_sha256
    ), family AS (
      UPDATE oauth_tokens SET expires_at = ${p.now}::timestamptz
       WHERE kind = 'refresh' AND expires_at > ${p.now}::timestamptz AND token_sha256 <> ${p.refreshSha256}
         AND (token_sha256 IN (SELECT parent_sha256 FROM presented)
              OR (replaced_at IS NULL AND parent_sha256 IN (SELECT parent_sha256 FROM presented)))
      RETURNING token_sha256
    ), fresh AS (
      INSERT INTO oauth_tokens (token_sha256, key_id, kind, expires_at, parent_sha256)
      SELECT v.token_sha256, p.key_id, v.kind, v.expires_at, p.token_sha256
        FROM presented AS p, (VALUES (${p.accessSha256}::text, 'access', ${p.accessExpiresAt}::timestamptz), (${p.nextRefreshSha256}::text, 'refresh', ${p.nextRefreshExpiresAt}::timestamptz))
             AS v (token_sha256, kind, expires_at)
      RETURNING key_id
    )
    SELECT (SELECT count(*) FROM fresh)::int AS issued, (SELECT count(*) FROM old)::int AS replaced,
           (SELECT count(*) FROM family)::int AS ended`,
});
