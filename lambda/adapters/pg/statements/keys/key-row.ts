import { verbatim } from '../../sql/template.js';

/** A key as the key statements answer it. */
export interface KeyRow {
  readonly key_id: string;
  readonly name: string;
  readonly user_id: string;
  readonly region: string;
  readonly created_at: Date;
  readonly revoked_at: Date | null;
  readonly client_id: string | null;
  readonly granted_by: string | null;
  readonly client_name?: string | null;
}

/** The columns of `api_keys`, always read as `k`. */
export const KEY_COLUMNS = verbatim(
  'k.key_id::text AS key_id, k.name, k.user_id::text AS user_id, k.region::text AS region, k.created_at, k.revoked_at, k.client_id, k.granted_by::text AS granted_by',
);
