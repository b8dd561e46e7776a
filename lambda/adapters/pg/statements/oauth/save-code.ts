import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface SaveCodeInputs {
  readonly region: string;
  /** The key typed at consent, as typed: the routine hashes it, so only its holder can make a code for it. */
  readonly consentKey: string;
  readonly codeSha256: string;
  readonly clientId: string;
  readonly agent: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly resource: string;
  readonly expiresAt: Date;
  /** The consent form's hash: unique per region, so a second code from one form inserts nothing. */
  readonly formSha256: string;
}

/**
 * An authorization code, saved once per consent form, for the live key of this region typed at
 * consent: its user and key come from that key's row. Run by a routine of the owner's
 * (sql/<engine>/*_credential_writes.sql): the MCP function may not write codes itself (decision 0130).
 */
export const SAVE_CODE = statement<SaveCodeInputs, { saved: number }>({
  name: 'oauth/save-code',
  expects: {},
  render: (p) => sql`SELECT saved FROM naaba_save_code(
      ${p.consentKey}, ${p.region}, ${p.codeSha256}, ${p.clientId}, ${p.agent}, ${p.redirectUri}, ${p.codeChallenge},
      ${p.resource}, ${p.expiresAt}::timestamptz, ${p.formSha256})`,
});
