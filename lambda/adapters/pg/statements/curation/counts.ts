import type { Scope } from '../../../../memory/model.js';
import type { KindCutoff } from '../../../../memory/policy/expiry.js';
import { kindsParams, liveIn } from '../../sql/fragments.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface CountsInputs {
  readonly scope: Scope;
  /** The kinds with a TTL and their cutoffs: expired memories are not counted. */
  readonly expiry: readonly KindCutoff[];
}

/** Live memories per kind, and how many of them are pinned: `curation_state` and the page's overview. */
export const COUNTS = statement<CountsInputs, { kind: string; total: number; pinned: number }>({
  name: 'curation/counts',
  expects: { postgresIndex: 'memories_user_kind' },
  render: (p, inputs) => sql`
SELECT m.kind, count(*)::int4 AS total, sum(CASE WHEN m.pinned THEN 1 ELSE 0 END)::int4 AS pinned
  FROM memories AS m
 WHERE m.region = ${p.scope.region} AND m.user_id = ${p.scope.userId}::uuid AND ${liveIn('m', kindsParams(inputs.expiry))}
 GROUP BY m.kind`,
});
