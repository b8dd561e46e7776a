import type { ApiKey, KeyStore, NewApiKey } from '../../ports/key-store.js';
import { type RetryPolicy, withRetry } from './retry.js';
import type { SqlClient } from './sql-client.js';

interface KeyRow {
  key_id: string;
  name: string;
  user_id: string;
  region: string;
  created_at: Date;
  revoked_at: Date | null;
  client_id: string | null;
  granted_by: string | null;
  client_name?: string | null;
}

/** The columns of `api_keys`, always read as `k`. */
const COLUMNS =
  'k.key_id::text AS key_id, k.name, k.user_id::text AS user_id, k.region::text AS region, k.created_at, k.revoked_at, k.client_id, k.granted_by::text AS granted_by';

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
  constructor(
    private readonly db: SqlClient,
    private readonly retry?: RetryPolicy,
  ) {}

  async findByHash(tokenSha256: string): Promise<ApiKey | undefined> {
    const rows = await withRetry(
      () => this.db.query<KeyRow>(`SELECT ${COLUMNS} FROM api_keys k WHERE k.token_sha256 = $1`, [tokenSha256]),
      this.retry,
    );
    return rows[0] ? toKey(rows[0]) : undefined;
  }

  async findByAccessToken(tokenSha256: string, now: Date): Promise<ApiKey | undefined> {
    const rows = await withRetry(
      () =>
        this.db.query<KeyRow>(
          `SELECT ${COLUMNS} FROM oauth_tokens t JOIN api_keys k ON k.key_id = t.key_id
            WHERE t.token_sha256 = $1 AND t.kind = 'access' AND t.expires_at > $2::timestamptz`,
          [tokenSha256, now],
        ),
      this.retry,
    );
    return rows[0] ? toKey(rows[0]) : undefined;
  }

  async insert(key: NewApiKey): Promise<void> {
    await withRetry(
      () =>
        this.db.query(
          `INSERT INTO api_keys (key_id, token_sha256, name, user_id, region, created_at, revoked_at)
           VALUES ($1::uuid, $2, $3, $4::uuid, $5, $6::timestamptz, NULL)`,
          [key.keyId, key.tokenSha256, key.name, key.userId, key.region, key.createdAt],
        ),
      this.retry,
    );
  }

  /**
   * One statement: the key and the live grants made with it (decision 0067), by a routine of the
   * owner's, since the MCP function, which revokes grants, may not write api_keys (decision 0093).
   */
  async revoke(keyId: string, at: Date): Promise<boolean> {
    const rows = await withRetry(
      () =>
        this.db.query<{ key_id: string }>('SELECT revoked_key AS key_id FROM naaba_revoke_key($1::uuid, $2::timestamptz)', [
          keyId,
          at,
        ]),
      this.retry,
    );
    return rows.some((r) => r.key_id === keyId.toLowerCase());
  }

  async list(): Promise<ApiKey[]> {
    const rows = await withRetry(
      () =>
        this.db.query<KeyRow>(
          `SELECT ${COLUMNS}, c.client_name FROM api_keys k LEFT JOIN oauth_clients c ON c.client_id = k.client_id
            ORDER BY k.created_at, k.key_id`,
        ),
      this.retry,
    );
    return rows.map(toKey);
  }

  /** CockroachDB rows live in one of the database's regions; PostgreSQL has no such list. */
  async regions(): Promise<string[] | undefined> {
    if (this.db.engine !== 'cockroach') return undefined;
    const rows = await withRetry(
      () => this.db.query<{ region: string }>('SELECT region FROM [SHOW REGIONS FROM DATABASE] ORDER BY region'),
      this.retry,
    );
    return rows.map((r) => r.region);
  }

  async userExists(userId: string, region: string): Promise<boolean> {
    const rows = await withRetry(
      () => this.db.query(`SELECT 1 FROM api_keys WHERE user_id = $1::uuid AND region = $2 LIMIT 1`, [userId, region]),
      this.retry,
    );
    return rows.length > 0;
  }
}
