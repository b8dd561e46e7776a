import { statement } from '../../sql/statement.js';
import { sql, verbatim } from '../../sql/template.js';
import { identifier } from './regions-of-database.js';

/**
 * Whether a table holds any row: read by `naaba migrate` before a migration that rewrites it
 * (`-- naaba:rewrite`, decision 0152), at most one row read.
 */
export const TABLE_HAS_ROWS = statement<{ table: string }, { found: boolean }>({
  name: 'schema/table-has-rows',
  expects: { fullScanAllowed: true },
  render: (_p, inputs) => sql`SELECT EXISTS (SELECT 1 FROM ${verbatim(identifier(inputs.table))}) AS found`,
});
