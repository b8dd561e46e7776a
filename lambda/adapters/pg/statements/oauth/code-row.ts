import { verbatim } from '../../sql/template.js';

/** An authorization code as the code statements answer it. */
export interface CodeRow {
  readonly region: string;
  readonly code_sha256: string;
  readonly client_id: string;
  readonly user_id: string;
  readonly agent: string;
  readonly redirect_uri: string;
  readonly code_challenge: string;
  readonly resource: string;
  readonly expires_at: Date;
  readonly granted_by: string | null;
}

export const CODE_COLUMNS = verbatim(
  'region::text AS region, code_sha256, client_id, user_id::text AS user_id, agent, redirect_uri, code_challenge, resource, expires_at, granted_by::text AS granted_by',
);
