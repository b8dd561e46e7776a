import type { ApiKey, KeyStore, NewApiKey } from '../../../ports/key-store.js';
import type { RetryPolicy } from '../retry.js';
import type { SqlClient } from '../sql-client.js';
import { DATABASE_REGIONS } from '../statements/keys/database-regions.js';
import { ACCESS_TOKEN_LONGEST_MS, FIND_KEY_BY_ACCESS_TOKEN } from '../statements/keys/find-by-access-token.js';
import { FIND_KEY_BY_HASH } from '../statements/keys/find-by-hash.js';
import type { KeyRow } from '../statements/keys/key-row.js';
import { INSERT_KEY } from '../statements/keys/insert-key.js';
import { LIST_KEYS } from '../statements/keys/list-keys.js';
import { LIVE_KEY_HASHES } from '../statements/keys/live-key-hashes.js';
import { REVOKE_KEY } from '../statements/keys/revoke-key.js';
import { USER_EXISTS } from '../statements/keys/user-exists.js';
import { StatementRunner } from './statement-runner.js';

const toKey = (row: KeyRow): ApiKey => ({
  keyId: row.key_id,
  name: row.name,
  userId: row.user_id,
  region: row.region,
  createdAt: new Date(row.created_at),
  revokedAt: row.revoked_at ? new Date(row.revoked_at) : null,
  clientId: row.client_id,
  grantedBy: row.granted_by,
  ...(row.client_name === undefined ? {} : { clientName: row.client_name }),
});

/** API keys over SQL. The token hash is written once and only ever compared. */
export class SqlKeyStore implements KeyStore {
  private readonly sql: StatementRunner;

  constructor(db: SqlClient, retry?: RetryPolicy) {
    this.sql = new StatementRunner(db, retry);
  }

  async findByHash(tokenSha256: string): Promise<ApiKey | undefined> {
    const [row] = await this.sql.run(FIND_KEY_BY_HASH, { tokenSha256 });
    return row ? toKey(row) : undefined;
  }

  async findByAccessToken(tokenSha256: string, now: Date): Promise<ApiKey | undefined> {
    const latest = new Date(now.getTime() + ACCESS_TOKEN_LONGEST_MS);
    const [row] = await this.sql.run(FIND_KEY_BY_ACCESS_TOKEN, { tokenSha256, now, latest });
    return row ? toKey(row) : undefined;
  }

  async insert(key: NewApiKey): Promise<void> {
    await this.sql.run(INSERT_KEY, key);
  }

  /** One statement: the key and the live grants made with it (decision 0067). */
  async revoke(keyId: string, at: Date): Promise<boolean> {
    const rows = await this.sql.run(REVOKE_KEY, { keyId, at });
    return rows.some((r) => r.key_id === keyId.toLowerCase());
  }

  async list(): Promise<ApiKey[]> {
    return (await this.sql.run(LIST_KEYS, {})).map(toKey);
  }

  async liveKeyHashes(): Promise<string[]> {
    return (await this.sql.run(LIVE_KEY_HASHES, {})).map((r) => r.token_sha256);
  }

  /** CockroachDB rows live in one of the database's regions; PostgreSQL has no such list. */
  async regions(): Promise<string[] | undefined> {
    if (this.sql.engine !== 'cockroach') return undefined;
    return (await this.sql.run(DATABASE_REGIONS, {})).map((r) => r.region);
  }

  async userExists(userId: string, region: string): Promise<boolean> {
    return (await this.sql.run(USER_EXISTS, { userId, region })).length > 0;
  }
}
