import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/**
 * A table's columns, less `skipped`, quoted, in order: what the local engine's ANALYZE samples
 * (decision 0117). Columns are read from the catalog so that a new column is sampled with no list
 * to keep in step.
 */
export const SAMPLED_COLUMNS = statement<{ table: string; skipped: readonly string[] }, { columns: string | null }>({
  name: 'schema/sampled-columns',
  expects: { fullScanAllowed: true },
  render: (p) => sql`
SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) AS columns
  FROM pg_attribute AS a
 WHERE a.attrelid = ${p.table}::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attname <> ALL(${p.skipped}::text[])`,
});
