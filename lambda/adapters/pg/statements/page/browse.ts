import type { Scope } from '../../../../memory/model.js';
import type { KindCutoff } from '../../../../memory/policy/expiry.js';
import {
  conflictsOf,
  kindsParams,
  liveIn,
  type MemoryRow,
  memoryAnswerColumns,
  memoryColumns,
  partitionList,
  supersessionOf,
} from '../../sql/fragments.js';
import { statement } from '../../sql/statement.js';
import { sql, verbatim } from '../../sql/template.js';

/** The orders the page may list memories in, each descending then by id: newest, most recently useful, most recalled. */
export const BROWSE_ORDERS = {
  created: { column: 'created_at', type: 'timestamptz' },
  last_useful: { column: 'last_useful_at', type: 'timestamptz' },
  recalls: { column: 'recall_count', type: 'int4' },
} as const;
export type BrowseOrder = keyof typeof BROWSE_ORDERS;

export interface BrowseInputs {
  readonly scope: Scope;
  readonly kinds: readonly KindCutoff[];
  readonly order: BrowseOrder;
  /** Rows asked: the page's size and one more, to tell whether another page follows. */
  readonly rows: number;
  /** The last row of the previous page: its value in the order (as text) and id, or nulls. */
  readonly afterValue: string | null;
  readonly afterId: string | null;
  /** Each filter, or null for any. */
  readonly agent: string | null;
  readonly client: string | null;
  /** A piece of the origin text, in any case. */
  readonly origin: string | null;
  readonly pinned: boolean | null;
  /** True: only memories linked to a conflicting one; false: only those without. */
  readonly conflicting: boolean | null;
}

/**
 * Live memories in one of the orders, keyset-paged, filtered, with the number of memories matching
 * the filters on every row (`total`, whatever the cursor): the memory page's listing and an
 * export's pages. Read only.
 */
export const BROWSE = statement<BrowseInputs, MemoryRow & { total: number }>({
  name: 'page/browse',
  expects: { postgresIndex: 'memories_user_kind' },
  render: (p, inputs) => {
    const { column, type } = BROWSE_ORDERS[inputs.order];
    const kinds = kindsParams(inputs.kinds);
    const by = verbatim(`p.${column}`);
    return sql`
WITH matching AS (
  SELECT ${memoryColumns('m')}, m.superseded_by, m.superseded_at
    FROM memories AS m
   WHERE (m.region, m.user_id, m.kind) IN (${partitionList(p.scope, kinds.names)})
     AND ${liveIn('m', kinds)}
     AND (${p.agent}::text IS NULL OR m.agent = ${p.agent}::text)
     AND (${p.client}::text IS NULL OR m.client = ${p.client}::text)
     AND (${p.origin}::text IS NULL OR strpos(lower(COALESCE(m.origin, '')), lower(${p.origin}::text)) > 0)
     AND (${p.pinned}::bool IS NULL OR m.pinned = ${p.pinned}::bool)
     AND (${p.conflicting}::bool IS NULL OR ((SELECT count(*) FROM memory_links AS l WHERE l.region = ${p.scope.region} AND l.memory_id = m.id) > 0) = ${p.conflicting}::bool)
)
SELECT ${memoryAnswerColumns('p')}, ${conflictsOf('p', p.scope.region)} AS conflicts, ${supersessionOf('p', p.scope.region)},
       (SELECT count(*) FROM matching)::int4 AS total
  FROM matching AS p
 WHERE (${p.afterValue}::text IS NULL OR (${by}, p.id) < (CAST(${p.afterValue}::text AS ${verbatim(type)}), ${p.afterId}::uuid))
 ORDER BY ${by} DESC, p.id DESC
 LIMIT ${p.rows}::int4`;
  },
});
