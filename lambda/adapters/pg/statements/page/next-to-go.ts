import type { Scope } from '../../../../memory/model.js';
import { EVICTABLE, EVICTION_ORDER } from '../../../../memory/policy/eviction.js';
import type { KindCutoff } from '../../../../memory/policy/expiry.js';
import { kindsParams, liveIn, partitionList } from '../../sql/fragments.js';
import { orderBy, predicate } from '../../sql/policy.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface NextToGoInputs {
  readonly scope: Scope;
  readonly kinds: readonly KindCutoff[];
  readonly perKind: number;
}

export interface NextToGoRow {
  readonly id: string;
  readonly kind: string;
  readonly content: string;
  readonly last_useful_at: Date;
  readonly recall_count: number;
}

/**
 * Per kind, the first live memories a ceiling would evict, in the eviction order the insert uses
 * (policy/eviction.ts): forgetting read before it happens. For a kind with a TTL the same order is
 * the order of expiry. Read only.
 */
export const NEXT_TO_GO = statement<NextToGoInputs, NextToGoRow>({
  name: 'page/next-to-go',
  expects: { postgresIndex: 'memories_user_kind' },
  render: (p, inputs) => {
    const kinds = kindsParams(inputs.kinds);
    return sql`
SELECT r.id::text AS id, r.kind, r.content, r.last_useful_at, r.recall_count
  FROM (SELECT m.id, m.kind, m.content, m.last_useful_at, m.recall_count,
               row_number() OVER (PARTITION BY m.kind ORDER BY ${orderBy(EVICTION_ORDER, 'm')}) AS rank
          FROM memories AS m
         WHERE (m.region, m.user_id, m.kind) IN (${partitionList(p.scope, kinds.names)})
           AND ${predicate(EVICTABLE, 'm', {})} AND ${liveIn('m', kinds)}) AS r
 WHERE r.rank <= ${p.perKind}::int4
 ORDER BY r.kind, r.rank`;
  },
});
