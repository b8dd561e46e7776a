import type { ApiKey } from '../../ports/key-store.js';
import type {
  AuthorizationCode,
  GrantCreation,
  OAuthClient,
  OAuthStore,
  Rotation,
  TokenPair,
  WindowCount,
} from '../../ports/oauth-store.js';
import { type RetryPolicy, withRetry } from './retry.js';
import type { SqlClient } from './sql-client.js';

interface ClientRow {
  client_id: string;
  client_name: string;
  redirect_uris: string;
  created_at: Date;
  expires_at: Date | null;
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
  granted_by: string | null;
}

const CODE_COLUMNS =
  'region::text AS region, code_sha256, client_id, user_id::text AS user_id, agent, redirect_uri, code_challenge, resource, expires_at, granted_by::text AS granted_by';

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
  grantedBy: row.granted_by,
});

/** The statements, named for the plan catalogue. Each is one round trip. */
export const oauthSql = {
  /** $1 id, $2 name, $3 redirect URIs (JSON), $4 now, $5 when it lapses unless a grant uses it. */
  REGISTER: `INSERT INTO oauth_clients (client_id, client_name, redirect_uris, created_at, expires_at)
    VALUES ($1, $2, $3, $4::timestamptz, $5::timestamptz)`,
  /** $1 id, $2 now: a lapsed unused registration is as unknown as one never made. */
  FIND_CLIENT: `SELECT client_id, client_name, redirect_uris, created_at, expires_at FROM oauth_clients
     WHERE client_id = $1 AND (expires_at IS NULL OR expires_at > $2::timestamptz)`,
  /** The form's hash is unique per region: a second code from one consent form inserts nothing. */
  SAVE_CODE: `INSERT INTO oauth_codes (region, code_sha256, client_id, user_id, agent, redirect_uri, code_challenge, resource, expires_at, granted_by, form_sha256)
    VALUES ($1, $2, $3, $4::uuid, $5, $6, $7, $8, $9::timestamptz, $10::uuid, $11)
    ON CONFLICT (region, form_sha256) DO NOTHING
    RETURNING 1 AS saved`,
  /** Only the first caller matches `used_at IS NULL`: the code is single use by construction. */
  CONSUME_CODE: `UPDATE oauth_codes SET used_at = $3::timestamptz
     WHERE region = $1 AND code_sha256 = $2 AND used_at IS NULL
    RETURNING ${CODE_COLUMNS}`,
  USED_CODE: 'SELECT key_id::text AS key_id FROM oauth_codes WHERE region = $1 AND code_sha256 = $2',
  /**
   * The grant, its first two tokens, the code's link to it, the end of the client's earlier grants
   * made with the same key and the end of the registration's expiry: all or nothing, and nothing
   * at all unless the key typed at consent is still live. One statement, run by a routine of the
   * owner's (sql/<engine>/*_key_writes.sql): the MCP function may not write api_keys itself
   * (decision 0093). $1 key id, $2 name, $3 user, $4 key region, $5 now, $6 client, $7/$8 access
   * hash/expiry, $9/$10 refresh hash/expiry, $11 code region, $12 code hash, $13 the key typed at consent.
   */
  CREATE_GRANT: `SELECT created, replaced, tokens, linked, kept FROM naaba_create_grant(
      $1::uuid, $2, $3::uuid, $4, $5::timestamptz, $6, $7, $8::timestamptz, $9, $10::timestamptz, $11, $12, $13::uuid)`,
  /**
   * Replaces a refresh token of a live grant of the client by a new pair, in one statement. The
   * token is live and not yet replaced, or replaced after the grace start ($8) and still unexpired
   * (no replacement of it has been used). Using a token ends its parent and its siblings (they
   * expire now), so a parent presented again after that is reuse. $1 refresh hash, $2 now,
   * $3 client, $4/$5 access hash/expiry, $6/$7 refresh hash/expiry, $8 grace start.
   */
  ROTATE: `WITH presented AS (
      SELECT t.token_sha256, t.key_id, t.parent_sha256, t.replaced_at
        FROM oauth_tokens AS t
       WHERE t.token_sha256 = $1 AND t.kind = 'refresh' AND t.expires_at > $2::timestamptz
         AND (t.replaced_at IS NULL OR t.replaced_at > $8::timestamptz)
         AND t.key_id IN (SELECT key_id FROM api_keys WHERE client_id = $3 AND revoked_at IS NULL)
    ), old AS (
      UPDATE oauth_tokens SET replaced_at = $2::timestamptz
       WHERE token_sha256 IN (SELECT token_sha256 FROM presented WHERE replaced_at IS NULL)
      RETURNING token_sha256
    ), family AS (
      UPDATE oauth_tokens SET expires_at = $2::timestamptz
       WHERE kind = 'refresh' AND expires_at > $2::timestamptz AND token_sha256 <> $1
         AND (token_sha256 IN (SELECT parent_sha256 FROM presented)
              OR (replaced_at IS NULL AND parent_sha256 IN (SELECT parent_sha256 FROM presented)))
      RETURNING token_sha256
    ), fresh AS (
      INSERT INTO oauth_tokens (token_sha256, key_id, kind, expires_at, parent_sha256)
      SELECT v.token_sha256, p.key_id, v.kind, v.expires_at, p.token_sha256
        FROM presented AS p, (VALUES ($4::text, 'access', $5::timestamptz), ($6::text, 'refresh', $7::timestamptz))
             AS v (token_sha256, kind, expires_at)
      RETURNING key_id
    )
    SELECT (SELECT count(*) FROM fresh)::int AS issued, (SELECT count(*) FROM old)::int AS replaced,
           (SELECT count(*) FROM family)::int AS ended`,
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
  /** $1 cutoff, $2 batch: registrations no grant used, lapsed before the cutoff. */
  DELETE_LAPSED_CLIENTS: `DELETE FROM oauth_clients WHERE client_id IN (
      SELECT client_id FROM oauth_clients WHERE expires_at < $1::timestamptz LIMIT $2::int)
    RETURNING 1`,
  /**
   * One request against a per-address limit: a new window when none is open (its start at or
   * before $5), else one more in the open one. $1 region, $2 address, $3 route, $4 now, $5 the
   * start before which a window has ended.
   */
  COUNT_REQUEST: `INSERT INTO oauth_rate_limits (region, address, route, window_start, hits)
    VALUES ($1, $2, $3, $4::timestamptz, 1)
    ON CONFLICT (region, address, route) DO UPDATE SET
      hits = CASE WHEN oauth_rate_limits.window_start <= $5::timestamptz THEN 1 ELSE oauth_rate_limits.hits + 1 END,
      window_start = CASE WHEN oauth_rate_limits.window_start <= $5::timestamptz THEN $4::timestamptz
                          ELSE oauth_rate_limits.window_start END
    RETURNING hits, window_start`,
  /** $1 region, $2 cutoff, $3 batch: windows that began before the cutoff (every window is shorter than a day). */
  DELETE_OLD_WINDOWS: `DELETE FROM oauth_rate_limits WHERE region = $1 AND (address, route) IN (
      SELECT address, route FROM oauth_rate_limits WHERE region = $1 AND window_start < $2::timestamptz LIMIT $3::int)
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

  async registerClient(client: OAuthClient): Promise<void> {
    await this.run(oauthSql.REGISTER, [
      client.clientId,
      client.clientName,
      JSON.stringify(client.redirectUris),
      client.createdAt,
      client.expiresAt,
    ]);
  }

  async findClient(clientId: string, at: Date): Promise<OAuthClient | undefined> {
    const [row] = await this.run<ClientRow>(oauthSql.FIND_CLIENT, [clientId, at]);
    if (!row) return undefined;
    const uris: unknown = JSON.parse(row.redirect_uris);
    return {
      clientId: row.client_id,
      clientName: row.client_name,
      redirectUris: Array.isArray(uris) ? uris.filter((u): u is string => typeof u === 'string') : [],
      createdAt: new Date(row.created_at),
      expiresAt: row.expires_at ? new Date(row.expires_at) : null,
    };
  }

  async saveCode(code: AuthorizationCode, formSha256: string): Promise<boolean> {
    const rows = await this.run(oauthSql.SAVE_CODE, [
      code.region,
      code.codeSha256,
      code.clientId,
      code.userId,
      code.agent,
      code.redirectUri,
      code.codeChallenge,
      code.resource,
      code.expiresAt,
      code.grantedBy,
      formSha256,
    ]);
    return rows.length === 1;
  }

  async consumeCode(region: string, codeSha256: string, at: Date) {
    const [row] = await this.run<CodeRow>(oauthSql.CONSUME_CODE, [region, codeSha256, at]);
    if (row) return { code: toCode(row) };
    const [used] = await this.run<{ key_id: string | null }>(oauthSql.USED_CODE, [region, codeSha256]);
    return used ? { reusedBy: used.key_id } : undefined;
  }

  async createGrant(
    grant: ApiKey & { clientId: string; grantedBy: string },
    codeSha256: string,
    tokens: TokenPair,
  ): Promise<GrantCreation> {
    const [row] = await this.run<{ created: number | string; replaced: number | string }>(oauthSql.CREATE_GRANT, [
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
      grant.grantedBy,
    ]);
    return { created: Number(row?.created ?? 0) === 1, replaced: Number(row?.replaced ?? 0) };
  }

  async rotate(refreshSha256: string, clientId: string, at: Date, graceSince: Date, tokens: TokenPair): Promise<Rotation> {
    const [row] = await this.run<{ issued: number | string }>(oauthSql.ROTATE, [
      refreshSha256,
      at,
      clientId,
      tokens.access.sha256,
      tokens.access.expiresAt,
      tokens.refresh.sha256,
      tokens.refresh.expiresAt,
      graceSince,
    ]);
    if (Number(row?.issued ?? 0) > 0) return { outcome: 'rotated' };
    const [replaced] = await this.run<{ key_id: string }>(oauthSql.REPLACED_REFRESH, [refreshSha256]);
    return replaced ? { outcome: 'reused', keyId: replaced.key_id } : { outcome: 'refused' };
  }

  async grantOf(tokenSha256: string, clientId: string): Promise<string | undefined> {
    const [row] = await this.run<{ key_id: string }>(oauthSql.GRANT_OF, [tokenSha256, clientId]);
    return row?.key_id;
  }

  async countRequest(route: string, address: string, at: Date, windowSince: Date): Promise<WindowCount> {
    const [row] = await this.run<{ hits: number | string; window_start: Date }>(oauthSql.COUNT_REQUEST, [
      this.region,
      address,
      route,
      at,
      windowSince,
    ]);
    return { hits: Number(row?.hits ?? 1), windowStart: new Date(row?.window_start ?? at) };
  }

  async deleteExpired(before: Date, batch: number): Promise<number> {
    const codes = await this.run(oauthSql.DELETE_EXPIRED_CODES, [this.region, before, batch]);
    const tokens = await this.run(oauthSql.DELETE_EXPIRED_TOKENS, [before, batch]);
    const clients = await this.run(oauthSql.DELETE_LAPSED_CLIENTS, [before, batch]);
    const windows = await this.run(oauthSql.DELETE_OLD_WINDOWS, [this.region, before, batch]);
    return codes.length + tokens.length + clients.length + windows.length;
  }
}
