import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** One bounded batch of a region's journal lines past retention. */
export const TRIM_JOURNAL = statement<{ region: string; olderThan: Date; batch: number }, { trimmed: number }>({
  name: 'maintenance/trim-journal',
  expects: { regionBatch: true, postgresIndex: 'journal_region_at' },
  render: (p) => sql`
WITH old AS (
  SELECT id FROM journal WHERE region = ${p.region} AND at < ${p.olderThan}::timestamptz ORDER BY at LIMIT ${p.batch}::int4
), gone AS (
  DELETE FROM journal WHERE region = ${p.region} AND id IN (SELECT id FROM old) RETURNING 1
)
SELECT (SELECT count(*) FROM gone)::int4 AS trimmed`,
});
