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
 * all unless the key typed at consent is still live. One statement, run by a routine of the owner's
 * (sql/<engine>/*_key_writes.sql): the MCP function may not write api_keys itself (decision 0093).
 */
export const CREATE_GRANT = statement<CreateGrantInputs, { created: number | string; replaced: number | string }>({
  name: 'oauth/create-grant',
  expects: {},
  render: (p) => sql`SELECT created, replaced, tokens, linked, kept FROM naaba_create_grant(
      ${p.keyId}::uuid, ${p.name}, ${p.userId}::uuid, ${p.region}, ${p.now}::timestamptz, ${p.clientId}, ${p.accessSha256},
      ${p.accessExpiresAt}::timestamptz, ${p.refreshSha256}, ${p.refreshExpiresAt}::timestamptz, ${p.region}, ${p.codeSha256},
      ${p.grantedBy}::uuid)`,
});
