import type { ApiKey } from '../../../ports/key-store.js';
import type {
  AuthorizationCode,
  GrantCreation,
  OAuthClient,
  OAuthStore,
  Rotation,
  TokenPair,
  WindowCount,
} from '../../../ports/oauth-store.js';
import type { RetryPolicy } from '../retry.js';
import type { SqlClient } from '../sql-client.js';
import type { CodeRow } from '../statements/oauth/code-row.js';
import { CONSUME_CODE } from '../statements/oauth/consume-code.js';
import { COUNT_REQUEST } from '../statements/oauth/count-request.js';
import { CREATE_GRANT } from '../statements/oauth/create-grant.js';
import { DELETE_EXPIRED_CODES } from '../statements/oauth/delete-expired-codes.js';
import { DELETE_EXPIRED_TOKENS } from '../statements/oauth/delete-expired-tokens.js';
import { DELETE_LAPSED_CLIENTS } from '../statements/oauth/delete-lapsed-clients.js';
import { DELETE_OLD_WINDOWS } from '../statements/oauth/delete-old-windows.js';
import { FIND_CLIENT } from '../statements/oauth/find-client.js';
import { LAPSE_UNUSED_CLIENTS } from '../statements/oauth/lapse-unused-clients.js';
import { GRANT_OF } from '../statements/oauth/grant-of.js';
import { REGISTER_CLIENT } from '../statements/oauth/register-client.js';
import { REPLACED_REFRESH } from '../statements/oauth/replaced-refresh.js';
import { ROTATE } from '../statements/oauth/rotate.js';
import { SAVE_CODE } from '../statements/oauth/save-code.js';
import { USED_CODE } from '../statements/oauth/used-code.js';
import { StatementRunner } from './statement-runner.js';

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

/** OAuth sign-in over SQL: single-use codes and refresh rotation are conditional UPDATEs, so they hold under concurrency. */
export class SqlOAuthStore implements OAuthStore {
  private readonly sql: StatementRunner;

  constructor(
    db: SqlClient,
    private readonly region: string,
    retry?: RetryPolicy,
  ) {
    this.sql = new StatementRunner(db, retry);
  }

  async registerClient(client: OAuthClient): Promise<void> {
    await this.sql.run(REGISTER_CLIENT, { ...client, redirectUris: JSON.stringify(client.redirectUris) });
  }

  async lapseUnusedClients(clientIds: readonly string[], at: Date): Promise<number> {
    if (clientIds.length === 0) return 0;
    return (await this.sql.run(LAPSE_UNUSED_CLIENTS, { clientIds: [...clientIds], at })).length;
  }

  async findClient(clientId: string, at: Date): Promise<OAuthClient | undefined> {
    const [row] = await this.sql.run(FIND_CLIENT, { clientId, now: at });
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

  async saveCode(code: AuthorizationCode, formSha256: string, consentKey: string): Promise<boolean> {
    const [row] = await this.sql.run(SAVE_CODE, { ...code, consentKey, formSha256 });
    return Number(row?.saved ?? 0) === 1;
  }

  async consumeCode(region: string, codeSha256: string, at: Date) {
    const [row] = await this.sql.run(CONSUME_CODE, { region, codeSha256, now: at });
    if (row) return { code: toCode(row) };
    const [used] = await this.sql.run(USED_CODE, { region, codeSha256 });
    return used ? { reusedBy: used.key_id } : undefined;
  }

  async createGrant(
    grant: ApiKey & { clientId: string; grantedBy: string },
    codeSha256: string,
    tokens: TokenPair,
  ): Promise<GrantCreation> {
    // The routine takes user, region, client and name from the code's and the granting key's rows.
    const [row] = await this.sql.run(CREATE_GRANT, {
      keyId: grant.keyId,
      now: grant.createdAt,
      accessSha256: tokens.access.sha256,
      accessExpiresAt: tokens.access.expiresAt,
      refreshSha256: tokens.refresh.sha256,
      refreshExpiresAt: tokens.refresh.expiresAt,
      region: this.region,
      codeSha256,
    });
    return { created: Number(row?.created ?? 0) === 1, replaced: Number(row?.replaced ?? 0) };
  }

  async rotate(refreshSha256: string, clientId: string, at: Date, graceSince: Date, tokens: TokenPair): Promise<Rotation> {
    const [row] = await this.sql.run(ROTATE, {
      refreshSha256,
      now: at,
      clientId,
      accessSha256: tokens.access.sha256,
      accessExpiresAt: tokens.access.expiresAt,
      nextRefreshSha256: tokens.refresh.sha256,
      nextRefreshExpiresAt: tokens.refresh.expiresAt,
      graceSince,
    });
    if (Number(row?.issued ?? 0) > 0) return { outcome: 'rotated' };
    const [replaced] = await this.sql.run(REPLACED_REFRESH, { refreshSha256 });
    return replaced ? { outcome: 'reused', keyId: replaced.key_id } : { outcome: 'refused' };
  }

  async grantOf(tokenSha256: string, clientId: string): Promise<string | undefined> {
    const [row] = await this.sql.run(GRANT_OF, { tokenSha256, clientId });
    return row?.key_id;
  }

  async countRequest(route: string, address: string, at: Date, windowSince: Date): Promise<WindowCount> {
    const [row] = await this.sql.run(COUNT_REQUEST, { region: this.region, address, route, now: at, windowSince });
    return { hits: Number(row?.hits ?? 1), windowStart: new Date(row?.window_start ?? at) };
  }

  async deleteExpired(before: Date, batch: number): Promise<number> {
    const codes = await this.sql.run(DELETE_EXPIRED_CODES, { region: this.region, before, batch });
    const tokens = await this.sql.run(DELETE_EXPIRED_TOKENS, { before, batch });
    const clients = await this.sql.run(DELETE_LAPSED_CLIENTS, { before, batch });
    const windows = await this.sql.run(DELETE_OLD_WINDOWS, { region: this.region, before, batch });
    return codes.length + tokens.length + clients.length + windows.length;
  }
}
