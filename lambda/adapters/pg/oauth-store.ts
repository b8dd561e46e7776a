import type { ApiKey } from '../../ports/key-store.js';
import type { AuthorizationCode, OAuthClient, OAuthStore, Rotation, TokenPair } from '../../ports/oauth-store.js';
import { type RetryPolicy, withRetry } from './retry.js';
import type { SqlClient } from './sql-client.js';

interface ClientRow {
  client_id: string;
  client_name: string;
  redirect_uris: string;
  created_at: Date;
}

interface CodeRow {
  region: string;
  code_sha256: string;
  client_id: string;
  user_id: string;
  agent: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  expires_at: Date;
}

const CODE_COLUMNS =
  'region::text AS region, code_sha256, client_id, user_id::text AS user_id, agent, redirect_uri, code_challenge, resource, expires_at';

const toCode = (row: CodeRow): AuthorizationCode => ({
  region: row.region,
  codeSha256: row.code_sha256,
  clientId: row.client_id,
  userId: row.user_id,
  agent: row.agent,
  redirectUri: row.redirect_uri,
  codeChallenge: row.code_challenge,
  resource: row.resource,
  expiresAt: new Date(row.expires_at),
});

/** The statements, named for the plan catalogue. Each is one round trip. */
export const oauthSql = {
  /** $1 id, $2 name, $3 redirect URIs (JSON), $4 now, $5 window start, $6 limit. */
  REGISTER: `INSERT INTO oauth_clients (client_id, client_name, redirect_uris, created_at)
    SELECT $1, $2, $3, $4::timestamptz
     WHERE (SELECT count(*) FROM oauth_clients WHERE created_at > $5::timestamptz) < $6::int
    RETURNING client_id`,
  FIND_CLIENT: 'SELECT client_id, client_name, redirect_uris, created_at FROM oauth_clients WHERE client_id = $1',
  SAVE_CODE: `INSERT INTO oauth_codes (region, code_sha256, client_id, user_id, agent, redirect_uri, code_challenge, resource, expires_at)
    VALUES ($1, $2, $3, $4::uuid, $5, $6, $7, $8, $9::timestamptz)`,
  /** Only the first caller matches `used_at IS NULL`: the code is single use by construction. */
  CONSUME_CODE: `UPDATE oauth_codes SET used_at = $3::timestamptz
     WHERE region = $1 AND code_sha256 = $2 AND used_at IS NULL
    RETURNING ${CODE_COLUMNS}`,
  USED_CODE: 'SELECT key_id::text AS key_id FROM oauth_codes WHERE region = $1 AND code_sha256 = $2',
  /**
   * The grant, its first two tokens and the code's link to it, all or nothing. $1 key id, $2 name,
   * $3 user, $4 key region, $5 now, $6 client, $7/$8 access hash/expiry, $9/$10 refresh hash/expiry,
   * $11 code region, $12 code hash.
   */
  CREATE_GRANT: `WITH grant_key AS (
      INSERT INTO api_keys (key_id, token_sha256, name, user_id, region, created_at, revoked_at, client_id)
      VALUES ($1::uuid, NULL, $2, $3::uuid, $4, $5::timestamptz, NULL, $6)
      RETURNING key_id
    ), tokens AS (
      INSERT INTO oauth_tokens (token_sha256, key_id, kind, expires_at)
      VALUES ($7, $1::uuid, 'access', $8::timestamptz), ($9, $1::uuid, 'refresh', $10::timestamptz)
      RETURNING key_id
    )
    UPDATE oauth_codes SET key_id = $1::uuid WHERE region = $11 AND code_sha256 = $12`,
  /**
   * Replaces a live refresh token of a live grant of the client by a new pair, in one statement.
   * $1 refresh hash, $2 now, $3 client, $4/$5 access hash/expiry, $6/$7 refresh hash/expiry.
   */
  ROTATE: `WITH old AS (
      UPDATE oauth_tokens SET replaced_at = $2::timestamptz
       WHERE token_sha256 = $1 AND kind = 'refresh' AND replaced_at IS NULL AND expires_at > $2::timestamptz
         AND key_id IN (SELECT key_id FROM api_keys WHERE client_id = $3 AND revoked_at IS NULL)
      RETURNING key_id
    ), fresh AS (
      INSERT INTO oauth_tokens (token_sha256, key_id, kind, expires_at)
      SELECT v.token_sha256, old.key_id, v.kind, v.expires_at
        FROM old, (VALUES ($4::text, 'access', $5::timestamptz), ($6::text, 'refresh', $7::timestamptz))
             AS v (token_sha256, kind, expires_at)
      RETURNING key_id
    )
    SELECT count(*)::int AS issued FROM fresh`,
  REPLACED_REFRESH: `SELECT key_id::text AS key_id FROM oauth_tokens
     WHERE token_sha256 = $1 AND kind = 'refresh' AND replaced_at IS NOT NULL`,
  GRANT_OF: `SELECT t.key_id::text AS key_id FROM oauth_tokens t JOIN api_keys k ON k.key_id = t.key_id
     WHERE t.token_sha256 = $1 AND k.client_id = $2`,
  /** $1 region, $2 cutoff, $3 batch. */
  DELETE_EXPIRED_CODES: `DELETE FROM oauth_codes WHERE region = $1 AND code_sha256 IN (
      SELECT code_sha256 FROM oauth_codes WHERE region = $1 AND expires_at < $2::timestamptz LIMIT $3::int)
    RETURNING 1`,
  /** $1 cutoff, $2 batch. Every region's sweeper runs it; deleting a row twice is deleting it once. */
  DELETE_EXPIRED_TOKENS: `DELETE FROM oauth_tokens WHERE token_sha256 IN (
      SELECT token_sha256 FROM oauth_tokens WHERE expires_at < $1::timestamptz LIMIT $2::int)
    RETURNING 1`,
} as const;

/** OAuth sign-in over SQL: single-use codes and refresh rotation are conditional UPDATEs, so they hold under concurrency. */
export class SqlOAuthStore implements OAuthStore {
  constructor(
    private readonly db: SqlClient,
    private readonly region: string,
    private readonly retry?: RetryPolicy,
  ) {}

  private run<R>(text: string, params: readonly unknown[]): Promise<R[]> {
    return withRetry(() => this.db.query<R>(text, params), this.retry);
  }

  async registerClient(client: OAuthClient, window: { since: Date; limit: number }): Promise<boolean> {
    const rows = await this.run(oauthSql.REGISTER, [
      client.clientId,
      client.clientName,
      JSON.stringify(client.redirectUris),
      client.createdAt,
      window.since,
      window.limit,
    ]);
    return rows.length === 1;
  }

  async findClient(clientId: string): Promise<OAuthClient | undefined> {
    const [row] = await this.run<ClientRow>(oauthSql.FIND_CLIENT, [clientId]);
    if (!row) return undefined;
    const uris: unknown = JSON.parse(row.redirect_uris);
    return {
      clientId: row.client_id,
      clientName: row.client_name,
      redirectUris: Array.isArray(uris) ? uris.filter((u): u is string => typeof u === 'string') : [],
      createdAt: new Date(row.created_at),
    };
  }

  async saveCode(code: AuthorizationCode): Promise<void> {
    await this.run(oauthSql.SAVE_CODE, [
      code.region,
      code.codeSha256,
      code.clientId,
      code.userId,
      code.agent,
      code.redirectUri,
      code.codeChallenge,
      code.resource,
      code.expiresAt,
    ]);
  }

  async consumeCode(region: string, codeSha256: string, at: Date) {
    const [row] = await this.run<CodeRow>(oauthSql.CONSUME_CODE, [region, codeSha256, at]);
    if (row) return { code: toCode(row) };
    const [used] = await this.run<{ key_id: string | null }>(oauthSql.USED_CODE, [region, codeSha256]);
    return used ? { reusedBy: used.key_id } : undefined;
  }

  async createGrant(grant: ApiKey & { clientId: string }, codeSha256: string, tokens: TokenPair): Promise<void> {
    await this.run(oauthSql.CREATE_GRANT, [
      grant.keyId,
      grant.name,
      grant.userId,
      grant.region,
      grant.createdAt,
      grant.clientId,
      tokens.access.sha256,
      tokens.access.expiresAt,
      tokens.refresh.sha256,
      tokens.refresh.expiresAt,
      grant.region,
      codeSha256,
    ]);
  }

  async rotate(refreshSha256: string, clientId: string, at: Date, tokens: TokenPair): Promise<Rotation> {
    const [row] = await this.run<{ issued: number }>(oauthSql.ROTATE, [
      refreshSha256,
      at,
      clientId,
      tokens.access.sha256,
      tokens.access.expiresAt,
      tokens.refresh.sha256,
      tokens.refresh.expiresAt,
    ]);
    if ((row?.issued ?? 0) > 0) return { outcome: 'rotated' };
    const [replaced] = await this.run<{ key_id: string }>(oauthSql.REPLACED_REFRESH, [refreshSha256]);
    return replaced ? { outcome: 'reused', keyId: replaced.key_id } : { outcome: 'refused' };
  }

  async grantOf(tokenSha256: string, clientId: string): Promise<string | undefined> {
    const [row] = await this.run<{ key_id: string }>(oauthSql.GRANT_OF, [tokenSha256, clientId]);
    return row?.key_id;
  }

  async deleteExpired(before: Date, batch: number): Promise<number> {
    const codes = await this.run(oauthSql.DELETE_EXPIRED_CODES, [this.region, before, batch]);
    const tokens = await this.run(oauthSql.DELETE_EXPIRED_TOKENS, [before, batch]);
    return codes.length + tokens.length;
  }
}
