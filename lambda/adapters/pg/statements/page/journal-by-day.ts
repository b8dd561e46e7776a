import type { Scope } from '../../../../memory/model.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

/** Journal lines per UTC day (`YYYY-MM-DD`) and rule since an instant: the page's chart. */
export const JOURNAL_BY_DAY = statement<{ scope: Scope; since: Date }, { day: string; rule: string; lines: number }>({
  name: 'page/journal-by-day',
  expects: { postgresIndex: 'journal_user_at' },
  render: (p) => sql`
SELECT CAST(CAST(j.at AT TIME ZONE 'UTC' AS DATE) AS TEXT) AS day, j.rule, count(*)::int4 AS lines
  FROM journal AS j
 WHERE j.region = ${p.scope.region} AND j.user_id = ${p.scope.userId}::uuid AND j.at >= ${p.since}::timestamptz
 GROUP BY 1, 2
 ORDER BY 1, 2`,
});
