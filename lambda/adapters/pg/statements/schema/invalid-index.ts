import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/**
 * Whether an index exists but is invalid (PostgreSQL): what a `CREATE INDEX CONCURRENTLY` leaves
 * when it is interrupted, and what the migration runner drops before building it again (decision 0099).
 */
export const INVALID_INDEX = statement<{ index: string }, { found: boolean }>({
  name: 'schema/invalid-index',
  expects: { fullScanAllowed: true },
  render: (p) =>
    sql`SELECT EXISTS (SELECT 1 FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid WHERE c.relname = ${p.index} AND NOT i.indisvalid) AS found`,
});
