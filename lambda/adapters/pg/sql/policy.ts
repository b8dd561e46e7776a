import type { Condition, OrderField } from '../../../memory/policy/condition.js';
import type { Formula } from '../../../memory/policy/formula.js';
import { type Param, type SqlFragment, sql, verbatim, join } from './template.js';

/**
 * The curation rules of lambda/memory/policy written as SQL: a rule's condition becomes a
 * predicate and an order an ORDER BY list, so the statements carry the rule the service and the
 * in-memory store evaluate, never a copy of it. Negations are pushed down to the columns
 * (`NOT pinned AND last_useful_at < cutoff`), so an engine sees predicates it can match to an index.
 */

/**
 * How a kind's expiry cutoff reaches a statement: absent (the kinds never expire), one parameter
 * that may be null, one known to be set (the sweeper's), or one per kind for a read of several
 * kinds (the kinds without a TTL have none).
 */
export type CutoffSql =
  | { readonly one: Param<Date | null> }
  | { readonly set: Param<Date> }
  | { readonly perKind: readonly { readonly kind: Param<string>; readonly cutoff: Param<Date> }[] };

/** The inputs a condition reads, as the statement's parameters; an input left out is absent (null). */
export interface ConditionSql {
  readonly cutoff?: CutoffSql;
  readonly spared?: Param<string | null | undefined>;
  /** The statement's region: a superseded memory's replacement is looked up in it. */
  readonly region?: Param<string>;
}

const COLUMNS: Record<Exclude<OrderField, 'supersededFirst'> | 'pinned' | 'kind' | 'supersededBy', string> = {
  id: 'id',
  supersededBy: 'superseded_by',
  lastUsefulAt: 'last_useful_at',
  pinned: 'pinned',
  kind: 'kind',
};

/** A memory's column, read through `alias` when there is one. */
const column = (alias: string | undefined, field: keyof typeof COLUMNS) =>
  verbatim(alias ? `${alias}.${COLUMNS[field]}` : COLUMNS[field]);

/** A truth as SQL: a constant (folded into what reads it) or an expression. */
export type SqlTruth = boolean | SqlFragment;
type Rendered = SqlTruth;

function combine(parts: readonly Rendered[], conjunction: boolean): Rendered {
  // A constant that decides the whole (true in OR, false in AND) wins; the neutral one drops out.
  if (parts.includes(!conjunction)) return !conjunction;
  const fragments = parts.filter((p): p is SqlFragment => typeof p !== 'boolean');
  if (fragments.length === 0) return conjunction;
  if (fragments.length === 1) return fragments[0] as SqlFragment;
  return sql`(${join(fragments, conjunction ? ' AND ' : ' OR ')})`;
}

function usefulSince(alias: string | undefined, cutoff: CutoffSql | undefined, negated: boolean): Rendered {
  const last = column(alias, 'lastUsefulAt');
  const compare = negated ? verbatim(' < ') : verbatim(' >= ');
  if (cutoff === undefined) return !negated;
  if ('set' in cutoff) return sql`${last}${compare}${cutoff.set}::timestamptz`;
  if ('one' in cutoff) {
    const c = cutoff.one;
    return negated
      ? sql`(${c}::timestamptz IS NOT NULL AND ${last} < ${c}::timestamptz)`
      : sql`(${c}::timestamptz IS NULL OR ${last} >= ${c}::timestamptz)`;
  }
  if (cutoff.perKind.length === 0) return !negated;
  const arms = cutoff.perKind.map(({ kind, cutoff: c }) => sql`WHEN ${kind} THEN ${last}${compare}${c}::timestamptz`);
  return sql`CASE ${column(alias, 'kind')} ${join(arms, ' ')} ELSE ${verbatim(negated ? 'false' : 'true')} END`;
}

function render(condition: Condition, alias: string | undefined, inputs: ConditionSql, negated: boolean): Rendered {
  switch (condition.test) {
    case 'pinned':
      return negated ? sql`NOT ${column(alias, 'pinned')}` : column(alias, 'pinned');
    case 'useful since cutoff':
      return usefulSince(alias, inputs.cutoff, negated);
    case 'spared': {
      const s = inputs.spared;
      if (s === undefined) return negated;
      const id = column(alias, 'id');
      return negated ? sql`(${s}::uuid IS NULL OR ${id} <> ${s}::uuid)` : sql`(${s}::uuid IS NOT NULL AND ${id} = ${s}::uuid)`;
    }
    case 'superseded': {
      const held = supersededSql(alias, inputs);
      return negated ? sql`NOT ${held}` : held;
    }
    case 'not':
      return render(condition.of, alias, inputs, !negated);
    case 'any':
    case 'all':
      return combine(
        condition.of.map((c) => render(c, alias, inputs, negated)),
        (condition.test === 'all') !== negated,
      );
  }
}

/** The condition as a predicate on the memory read as `alias` (or unqualified). */
export function predicate(condition: Condition, alias: string | undefined, inputs: ConditionSql): SqlFragment {
  const rendered = render(condition, alias, inputs, false);
  return typeof rendered === 'boolean' ? verbatim(rendered ? 'true' : 'false') : rendered;
}

/**
 * Superseded: the memory names its replacement and the replacement exists (a point read of the
 * primary key), so a forgotten newer memory leaves the older current without a write.
 */
function supersededSql(alias: string | undefined, inputs: ConditionSql): SqlFragment {
  // The replacement is read in a subquery over memories: an unqualified column would name its row.
  if (!inputs.region || !alias) throw new Error('the superseded test needs the statement region and an alias');
  const by = column(alias, 'supersededBy');
  return sql`(${by} IS NOT NULL AND EXISTS (SELECT 1 FROM memories AS newer WHERE newer.region = ${inputs.region} AND newer.id = ${by}))`;
}

/** The order as an ORDER BY list (each ascending) of the memory read as `alias` (or unqualified). */
export const orderBy = (order: readonly OrderField[], alias?: string, inputs: ConditionSql = {}): SqlFragment =>
  join(
    order.map((field) =>
      field === 'supersededFirst' ? sql`CASE WHEN ${supersededSql(alias, inputs)} THEN 0 ELSE 1 END` : column(alias, field),
    ),
  );

/** A truth as an expression: a constant becomes `true` or `false`. */
export const expression = (truth: SqlTruth): SqlFragment =>
  typeof truth === 'boolean' ? verbatim(truth ? 'true' : 'false') : truth;

/**
 * The rules of counts and flags (policy/formula.ts) as SQL expressions over the fragments a
 * statement gives them (`${p.pinLimit}::int4`, a count's subquery). Every compound result is
 * parenthesised, so it reads the same wherever a statement puts it; a constant truth folds away,
 * so `{ foundByWords: false }` leaves the distance test alone.
 */
export const SQL: Formula<SqlFragment, SqlTruth> = {
  constant: (n) => verbatim(String(n)),
  plus: (a, b) => sql`(${a} + ${b})`,
  minus: (a, b) => sql`(${a} - ${b})`,
  times: (a, b) => sql`(${a} * ${b})`,
  floor: (a) => sql`CAST(floor(${a}) AS INT4)`,
  greatest: (a, b) => sql`GREATEST(${a}, ${b})`,
  equals: (a, b) => sql`(${a} = ${b})`,
  below: (a, b) => sql`(${a} < ${b})`,
  atMost: (a, b) => sql`(${a} <= ${b})`,
  truth: (b) => b,
  not: (a) => (typeof a === 'boolean' ? !a : sql`NOT ${a}`),
  and: (...of) => combine(of, true),
  or: (...of) => combine(of, false),
  when: (test, then, otherwise) => {
    if (typeof test === 'boolean') return test ? then : otherwise;
    return sql`CASE WHEN ${test} THEN ${expression(then)} ELSE ${expression(otherwise)} END`;
  },
};
