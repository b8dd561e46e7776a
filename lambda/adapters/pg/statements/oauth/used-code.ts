import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** The grant a code already used was exchanged for (a replay ends that grant). */
export const USED_CODE = statement<{ region: string; codeSha256: string }, { key_id: string | null }>({
  name: 'oauth/used-code',
  expects: {},
  render: (p) => sql`SELECT key_id::text AS key_id FROM oauth_codes WHERE region = ${p.region} AND code_sha256 = ${p.codeSha256}`,
});
