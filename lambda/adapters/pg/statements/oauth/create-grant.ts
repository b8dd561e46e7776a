import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface CreateGrantInputs {
  readonly keyId: string;
  readonly now: Date;
  readonly accessSha256: string;
  readonly accessExpiresAt: Date;
  readonly refreshSha256: string;
  readonly refreshExpiresAt: Date;
  readonly region: string;
  readonly codeSha256: string;
}

/**
 * The grant a used code makes, its first two tokens, the code's link to it, the end of the client's
 * earlier grants made with the same key and the end of the registration's expiry: all or nothing,
 * and nothing unless the key typed at consent is still live. The user, region, client and name come
 * from the code's and the granting key's rows, never from here; the tokens' expiry is bounded. One
 * statement, run by a routine of the owner's (sql/<engine>/*_credential_writes.sql, decision 0130).
 */
export const CREATE_GRANT = statement<CreateGrantInputs, { created: number | string; replaced: number | string }>({
  name: 'oauth/create-grant',
  expects: {},
  render: (p) => sql`SELECT created, replaced, tokens, linked, kept FROM naaba_grant_code(
      ${p.keyId}::uuid, ${p.now}::timestamptz, ${p.accessSha256}, ${p.accessExpiresAt}::timestamptz, ${p.refreshSha256},
      ${p.refreshExpiresAt}::timestamptz, ${p.region}, ${p.codeSha256})`,
});
