import type { KindCutoff } from '../../../memory/policy/expiry.js';
import { pinned } from '../../../memory/policy/condition.js';
import { LIVE } from '../../../memory/policy/expiry.js';
import type { SqlEngine } from '../sql-client.js';
import type { CutoffSql } from './policy.js';
import { predicate } from './policy.js';
import { memoryPostings, postingsOf, unranked } from './postings.js';
import { join, type Param, param, type SqlFragment, sql, verbatim } from './template.js';

/**
 * Pieces several statements share, in the SQL subset PostgreSQL and CockroachDB both accept. Each
 * is a function of the aliases and parameters it reads, so a statement reads as one piece of SQL.
 */

/** The (region, user) partition every memory statement is confined to. */
export interface ScopeParams {
  readonly region: Param<string>;
  readonly userId: Param<string>;
}

/** The columns every memory answer carries, read from `alias`. */
export const memoryColumns = (alias: string): SqlFragment =>
  verbatim(
    [
      'id',
      'kind',
      'content',
      'pinned',
      'created_at',
      'last_useful_at',
      'recall_count',
      'restatements',
      'origin',
      'agent',
      'client',
      'restated_by',
    ]
      .map((c) => `${alias}.${c}`)
      .join(', '),
  );

/** A memory row as the statements answer it (answer columns and conflicts). */
export interface MemoryRow {
  readonly id: string;
  readonly kind: string;
  readonly content: string;
  readonly pinned: boolean;
  readonly created_at: Date;
  readonly last_useful_at: Date;
  readonly recall_count: number;
  readonly restatements: number;
  readonly origin: string | null;
  readonly agent: string;
  readonly client: string;
  readonly restated_by: unknown;
  readonly conflicts: string[] | null;
  /** The memory's replacement while it exists (`supersessionOf`); absent where a statement does not read it. */
  readonly superseded_by?: string | null;
  /** When it was replaced, while its replacement exists (`supersessionOf`). */
  readonly superseded_at?: Date | string | null;
  /** The memories it replaced (`supersessionOf`). */
  readonly supersedes?: string[] | null;
}

/** The same columns with the id as text, as answers carry it. */
export const memoryAnswerColumns = (alias: string): SqlFragment =>
  verbatim(memoryColumns(alias).text.replace(`${alias}.id,`, `${alias}.id::text AS id,`));

/** The ids a memory is linked to by a conflict, sorted. */
export const conflictsOf = (alias: string, region: Param<string>): SqlFragment =>
  sql`ARRAY(SELECT l.linked_id::text FROM memory_links AS l WHERE l.region = ${region} AND l.memory_id = ${verbatim(alias)}.id ORDER BY 1)`;

/**
 * The two sides of a supersession for the memory read as `alias` (a row with `superseded_by`):
 * its replacement while that exists, and the memories it replaced, sorted, found through its links.
 */
export const supersessionOf = (alias: string, region: Param<string>): SqlFragment => {
  const m = verbatim(alias);
  return sql`(SELECT newer.id::text FROM memories AS newer WHERE newer.region = ${region} AND newer.id = ${m}.superseded_by) AS superseded_by,
       (SELECT ${m}.superseded_at FROM memories AS newer WHERE newer.region = ${region} AND newer.id = ${m}.superseded_by) AS superseded_at,
       ARRAY(SELECT older.id::text FROM memory_links AS l JOIN memories AS older ON older.region = l.region AND older.id = l.linked_id
              WHERE l.region = ${region} AND l.memory_id = ${m}.id AND older.superseded_by = ${m}.id ORDER BY 1) AS supersedes`;
};

/** How many memories the user has pinned (the pin limit's count: a pinned memory never expires), as a subquery. */
export const pinnedCount = (scope: ScopeParams): SqlFragment =>
  sql`(SELECT count(*) FROM memories WHERE region = ${scope.region} AND user_id = ${scope.userId}::uuid AND ${predicate(pinned, undefined, {})})`;

/** Kinds read at once, each a parameter, with their expiry cutoffs as the liveness rule takes them. */
export interface KindsParams {
  readonly names: readonly Param<string>[];
  readonly cutoff: CutoffSql;
}

/** One parameter per kind's name, and one per cutoff of those with a TTL. */
export function kindsParams(kinds: readonly KindCutoff[]): KindsParams {
  const names = kinds.map((k, i) => param(`kinds[${i}].kind`, k.kind));
  const perKind = kinds.flatMap((k, i) => {
    const name = names[i];
    return k.expiredBefore === null || !name ? [] : [{ kind: name, cutoff: param(`kinds[${i}].expiredBefore`, k.expiredBefore) }];
  });
  return { names, cutoff: { perKind } };
}

/** The (region, user, kind) prefixes of some kinds, as a tuple IN list: what every index of a partition is led by. */
export const partitionList = (scope: ScopeParams, kinds: readonly Param<string>[]): SqlFragment =>
  join(kinds.map((kind) => sql`(${scope.region}, ${scope.userId}::uuid, ${kind})`));

/** True for a live memory read as `alias`, each kind with its own cutoff. */
export const liveIn = (alias: string, kinds: KindsParams): SqlFragment => predicate(LIVE, alias, { cutoff: kinds.cutoff });

/**
 * Journal rows for expired memories read from `source` (columns created_at, last_useful_at,
 * recall_count): a line's time is the instant the memory expired, its last usefulness plus the
 * kind's TTL (`ttl`, an interval), whenever it was removed; the age is the memory's at that
 * instant (decision 0055).
 */
export const expiryLines = (source: string, region: Param<string>, user: SqlFragment, kind: SqlFragment, ttl: SqlFragment) =>
  sql`SELECT gen_random_uuid(), ${region}, ${user}, e.last_useful_at + ${ttl}, ${kind}, 'expiry',
         CAST(extract(epoch FROM e.last_useful_at + ${ttl} - e.created_at) AS INT8), e.recall_count
    FROM ${verbatim(source)} AS e`;

/**
 * What must follow when memories leave by any path but an insert (forget, expiry, the sweeper):
 * their postings go, and their partitions' document frequencies, flagged postings (decision 0101)
 * and counts come down by what left; a term left with too few flagged is marked for ranking.
 * `gone` returns user_id, kind, id, terms, term_tfs and term_count of the deleted rows; `user` is the
 * statement's user when it has one. Every change is a decrement, so statements running at once (at
 * READ COMMITTED) add up exactly; a frequency that reaches zero stays as a row until the sweeper
 * clears it (maintenance/clear-empty-terms).
 */
export function forgottenTerms(gone: string, engine: SqlEngine, region: Param<string>, user?: Param<string>): SqlFragment {
  // With the user known, every statement reads that user's keys only, whatever the planner guesses.
  const own = (alias: string) => (user ? sql` AND ${verbatim(alias)}.user_id = ${user}::uuid` : verbatim(''));
  const from = verbatim(gone);
  return sql`gone_terms AS (
  ${memoryPostings(gone, engine)}
), unposted AS (
  DELETE FROM memory_terms AS p
   WHERE p.region = ${region}${own('p')} AND ${postingsOf('p', 'gone_terms', engine)}
  RETURNING p.user_id, p.kind, p.term, p.best
), rarer AS (
  UPDATE memory_partition_terms AS d
     SET df = d.df - c.n, best = d.best - c.flagged,
         stale = d.stale OR ${unranked(sql`d.df - c.n`, sql`d.best - c.flagged`, sql`d.cut_id IS NULL`)}
    FROM (SELECT user_id, kind, term, count(*) AS n, count(*) FILTER (WHERE best) AS flagged FROM unposted GROUP BY user_id, kind, term) AS c
   WHERE d.region = ${region}${own('d')} AND d.user_id = c.user_id AND d.kind = c.kind AND d.term = c.term
  RETURNING 1
), smaller AS (
  UPDATE memory_partitions AS p SET memories = p.memories - c.n, term_total = p.term_total - c.total
    FROM (SELECT user_id, kind, count(*) AS n, sum(term_count) AS total FROM ${from} GROUP BY user_id, kind) AS c
   WHERE p.region = ${region}${own('p')} AND p.user_id = c.user_id AND p.kind = c.kind
  RETURNING 1
)`;
}

/** Prepends one source to a bounded newest-first JSONB list (`jsonb - int` drops the overflow). */
export const restatedByPush = (target: string, source: Param<string>, keep: Param<number>): SqlFragment =>
  sql`(jsonb_build_array(${source}::jsonb) || ${verbatim(target)}.restated_by) - ${keep}::int4`;

/**
 * The last place taken in a (user, origin, kind): 0 when the origin is new there. A memory written
 * with an origin takes the next place, so that recall can read what follows a hit by key (decision
 * 0082). Every writer of a (user, kind) writes its partition's row too, so two that read the same
 * last place cannot both commit: the second fails and retries behind the first.
 */
export const lastPlace = (scope: ScopeParams, origin: SqlFragment, kind: SqlFragment): SqlFragment =>
  sql`COALESCE((SELECT max(o.origin_seq) FROM memories AS o
                    WHERE o.region = ${scope.region} AND o.user_id = ${scope.userId}::uuid AND o.origin IS NOT NULL AND o.origin = ${origin}
                      AND o.kind = ${kind}), 0)`;

/**
 * The partition row's mark for the sweeper's walk of partitions that may need vector cells
 * (decision 0118), as a statement that counts memories in writes it: `column` and `value` in the
 * INSERT, `kept` in its ON CONFLICT update (the row as `alias`). A write marks the partition once
 * its count reaches `from` (policy/ranking.ts `VECTOR_CELLS.from`) and never unmarks it: only the
 * sweeper does, for a partition under `from` without cells. While the mark stays what it was, the
 * update changes no indexed column and stays HOT, with no index write. CockroachDB has no cells:
 * nothing there.
 */
export const cellsMark = {
  column: (engine: SqlEngine): SqlFragment => verbatim(engine === 'cockroach' ? '' : ', cells_due'),
  value: (engine: SqlEngine, count: SqlFragment, from: Param<number>): SqlFragment =>
    engine === 'cockroach' ? verbatim('') : sql`, ${reachesCells(count, from)}`,
  kept: (engine: SqlEngine, alias: string, from: Param<number>): SqlFragment =>
    engine === 'cockroach'
      ? verbatim('')
      : sql`, cells_due = ${verbatim(alias)}.cells_due OR ${reachesCells(sql`${verbatim(alias)}.memories + excluded.memories`, from)}`,
};

/** Whether a partition of `count` memories is large enough for cells: the one place SQL states it. */
const reachesCells = (count: SqlFragment, from: Param<number>): SqlFragment => sql`(${count}) >= ${from}::int4`;
