import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface InsertKeyInputs {
  readonly keyId: string;
  readonly tokenSha256: string;
  readonly name: string;
  readonly userId: string;
  readonly region: string;
  readonly createdAt: Date;
}

/** A new key: only its token's SHA-256 is stored. */
export const INSERT_KEY = statement<InsertKeyInputs>({
  name: 'keys/insert-key',
  expects: {},
  render: (p) => sql`INSERT INTO api_keys (key_id, token_sha256, name, user_id, region, created_at, revoked_at)
           VALUES (${p.keyId}::uuid, ${p.tokenSha256}, ${p.name}, ${p.userId}::uuid, ${p.region}, ${p.createdAt}::timestamptz, NULL)`,
});
