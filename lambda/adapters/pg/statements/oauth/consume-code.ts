import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';
import { CODE_COLUMNS, type CodeRow } from './code-row.js';

/**
 * A code used: only the first caller matches `used_at IS NULL`, so a code is single use by
 * construction. Run by a routine of the owner's (decision 0130): the MCP function writes no code.
 */
export const CONSUME_CODE = statement<{ region: string; codeSha256: string; now: Date }, CodeRow>({
  name: 'oauth/consume-code',
  expects: {},
  render: (p) => sql`SELECT ${CODE_COLUMNS} FROM naaba_consume_code(${p.region}, ${p.codeSha256}, ${p.now}::timestamptz)`,
});
