import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { CODE_COLUMNS, type CodeRow } from './code-row.js';

/** A code used: only the first caller matches `used_at IS NULL`, so a code is single use by construction. */
export const CONSUME_CODE = statement<{ region: string; codeSha256: string; now: Date }, CodeRow>({
  name: 'oauth/consume-code',
  expects: {},
  render: (p) => sql`UPDATE oauth_codes SET used_at = ${p.now}::timestamptz
     WHERE region = ${p.region} AND code_sha256 = ${p.codeSha256} AND used_at IS NULL
    RETURNING ${CODE_COLUMNS}`,
});
