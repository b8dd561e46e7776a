import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface SaveCodeInputs {
  readonly region: string;
  readonly codeSha256: string;
  readonly clientId: string;
  readonly userId: string;
  readonly agent: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly resource: string;
  readonly expiresAt: Date;
  readonly grantedBy: string | null;
  /** The consent form's hash: unique per region, so a second code from one form inserts nothing. */
  readonly formSha256: string;
}

/** An authorization code, saved once per consent form. */
export const SAVE_CODE = statement<SaveCodeInputs, { saved: number }>({
  name: 'oauth/save-code',
  expects: {},
  render: (
    p,
  ) => sql`INSERT INTO oauth_codes (region, code_sha256, client_id, user_id, agent, redirect_uri, code_challenge, resource, expires_at, granted_by, form_sha256)
    VALUES (${p.region}, ${p.codeSha256}, ${p.clientId}, ${p.userId}::uuid, ${p.agent}, ${p.redirectUri}, ${p.codeChallenge}, ${p.resource}, ${p.expiresAt}::timestamptz, ${p.grantedBy}::uuid, ${p.formSha256})
    ON CONFLICT (region, form_sha256) DO NOTHING
    RETURNING 1 AS saved`,
});
