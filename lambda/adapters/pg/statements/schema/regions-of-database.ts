import { statement } from '../../sql/statement.js';
import { sql, verbatim } from '../../sql/template.js';

/** A double-quoted SQL identifier (database and region names). */
export const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The regions of a CockroachDB database, the primary marked: what a migration makes multi-region. */
export const REGIONS_OF_DATABASE = statement<{ database: string }, { region: string; primary: boolean }>({
  name: 'schema/regions-of-database',
  expects: { fullScanAllowed: true },
  render: (_p, inputs) =>
    sql`SELECT region, "primary" FROM [SHOW REGIONS FROM DATABASE ${verbatim(identifier(inputs.database))}]`,
});
