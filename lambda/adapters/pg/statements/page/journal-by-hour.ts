import type { Scope } from '../../../../memory/model.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** Journal lines per hour (whole hours since the epoch, UTC) and rule since an instant: the page's chart. */
export const JOURNAL_BY_HOUR = statement<{ scope: Scope; since: Date }, { hour: number | string; rule: string; lines: number }>({
  name: 'page/journal-by-hour',
  expects: { postgresIndex: 'journal_user_at' },
  render: (p) => sql`
SELECT CAST(floor(extract(epoch FROM j.at) / 3600) AS INT8) AS hour, j.rule, count(*)::int4 AS lines
  FROM journal AS j
 WHERE j.region = ${p.scope.region} AND j.user_id = ${p.scope.userId}::uuid AND j.at >= ${p.since}::timestamptz
 GROUP BY 1, 2
 ORDER BY 1, 2`,
});
