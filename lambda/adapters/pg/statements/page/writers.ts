import type { Scope } from '../../../../memory/model.js';
import type { KindCutoff } from '../../../../memory/policy/expiry.js';
import { kindsParams, liveIn, partitionList } from '../../sql/fragments.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface WritersInputs {
  readonly scope: Scope;
  readonly kinds: readonly KindCutoff[];
  /** How many (agent, client) pairs at most. */
  readonly limit: number;
}

/** Who wrote the caller's live memories: each (agent, client) with how many, most first, for the page's filters. */
export const WRITERS = statement<WritersInputs, { agent: string; client: string; memories: number }>({
  name: 'page/writers',
  expects: { postgresIndex: 'memories_user_kind' },
  render: (p, inputs) => {
    const kinds = kindsParams(inputs.kinds);
    return sql`
SELECT m.agent, m.client, count(*)::int4 AS memories
  FROM memories AS m
 WHERE (m.region, m.user_id, m.kind) IN (${partitionList(p.scope, kinds.names)}) AND ${liveIn('m', kinds)}
 GROUP BY m.agent, m.client
 ORDER BY 3 DESC, 1, 2
 LIMIT ${p.limit}::int4`;
  },
});
