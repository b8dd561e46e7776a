import type { Scope } from '../../../../memory/model.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface JournalPageInputs {
  readonly scope: Scope;
  /** Lines asked: the page's size and one more, to tell whether another page follows. */
  readonly rows: number;
  /** The last line of the previous page (its time and id), or nulls for the first page. */
  readonly afterAt: Date | null;
  readonly afterId: string | null;
}

export interface JournalLineRow {
  readonly line_id: string;
  readonly at: Date;
  readonly kind: string;
  readonly rule: string;
  readonly age_s: number | string;
  readonly recall_count: number;
}

/** The caller's journal, newest first, keyset-paged: `curation_state`, the page, an export. */
export const JOURNAL_PAGE = statement<JournalPageInputs, JournalLineRow>({
  name: 'curation/journal-page',
  expects: { postgresIndex: 'journal_user_at' },
  render: (p) => sql`
SELECT j.id::text AS line_id, j.at, j.kind, j.rule, j.age_s, j.recall_count
  FROM journal AS j
 WHERE j.region = ${p.scope.region} AND j.user_id = ${p.scope.userId}::uuid
   AND (${p.afterAt}::timestamptz IS NULL OR (j.at, j.id) < (${p.afterAt}::timestamptz, ${p.afterId}::uuid))
 ORDER BY j.at DESC, j.id DESC
 LIMIT ${p.rows}::int4`,
});
