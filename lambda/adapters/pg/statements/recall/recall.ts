import { not } from '../../../../memory/policy/condition.js';
import { relatedIn } from '../../../../memory/policy/floor.js';
import { keptPlacesIn, NO_SUBJECT } from '../../../../memory/policy/recency.js';
import { SUPERSEDED } from '../../../../memory/policy/supersession.js';
import {
  conflictsOf,
  type KindsParams,
  kindsParams,
  liveIn,
  type MemoryRow,
  memoryColumns,
  partitionList,
  supersessionOf,
} from '../../sql/fragments.js';
import { expression, predicate, SQL } from '../../sql/policy.js';
import { type PlanExpectations, statement } from '../../sql/statement.js';
import { join, type Param, param, type SqlFragment, sql, verbatim } from '../../sql/template.js';
import { cellsVectorArm, followingHits, fusedPart, lexicalArm, vectorArm } from './recall-arms.js';
import type { RecallInputs } from './recall-inputs.js';

export type { RecallInputs } from './recall-inputs.js';

/**
 * PostgreSQL: the vector arm reads the caller's partitions by their cells, and those without a
 * cell through the (region, user_id, kind, cell) btree (decision 0083); the lexical arm the
 * postings of the query's terms by their key (decision 0056), past the depth the flagged ones
 * only (decision 0101), from the flagged span of memory_terms_ranked (decision 0160).
 */
const CELLS_PLAN_PG = ['memories_cell', 'memories_uncelled', 'memory_cells_pkey'];
const LEXICAL_PLAN_PG = [...CELLS_PLAN_PG, 'memory_terms_ranked'];

function recallPlan(inputs: RecallInputs, engine: string): PlanExpectations {
  const lexical = inputs.terms.length > 0;
  if (engine === 'cockroach') return { vectorSearch: true, lexicalSearch: lexical, followingRead: true };
  return {
    cellsRead: true,
    lexicalSearch: lexical,
    followingRead: true,
    postgresIndex: lexical ? LEXICAL_PLAN_PG : CELLS_PLAN_PG,
  };
}

/**
 * Who takes a place in recall: a live memory that no existing newer memory superseded, or any live
 * one when the caller asks for superseded memories too (policy/supersession.ts).
 */
function placeable(alias: string, kinds: KindsParams, region: Param<string>, includeSuperseded: boolean): SqlFragment {
  const live = liveIn(alias, kinds);
  return includeSuperseded ? live : sql`${live} AND ${predicate(not(SUPERSEDED), alias, { region })}`;
}

/**
 * The best live memories first, one statement: the vector arm and, with terms, the lexical arm over
 * the caller's (region, user, kind) partitions; expiry checked on the rows each returns; the ranks
 * fused (score = Σ weight / (k + rank)); the relevance floor (what only the vector arm found counts
 * within the farthest distance, so a query that matches no term and lies far from every memory
 * returns nothing); then each hit brings the memories that follow it in its origin, and the best
 * `limit` of both are returned, the first direct hits always among them, marked useful unless
 * `touch` is false, each with the other memories found on its subject and its lexical score, from which the service orders the answer (policy/recency.ts). An arm of weight 0 still
 * runs but counts for nothing, and what only it found is not returned (the lexical arm alone).
 *
 * The vector arm reads the vector index with the prefix pinned and nothing else on CockroachDB; on
 * PostgreSQL and PGlite, which have no such index, it reads the nearest cells of each partition
 * that has them, and the rest exactly.
 */
export const RECALL = statement<RecallInputs, RecalledRow>({
  name: 'recall/recall',
  expects: recallPlan,
  render: (p, inputs, engine) => {
    const kinds = kindsParams(inputs.kinds);
    const include = inputs.includeSuperseded === true;
    const prefixes = partitionList(p.scope, kinds.names);
    const lexical = inputs.terms.length > 0;
    // The lexical arm first: on PostgreSQL and PGlite the vector arm measures its candidates too.
    const ctes = lexical
      ? [
          lexicalArm(
            p,
            kinds.names.map((kind) => ({ prefix: partitionList(p.scope, [kind]), kind })),
            placeable('m', kinds, p.scope.region, include),
          ),
        ]
      : [];
    ctes.push(
      engine === 'cockroach'
        ? vectorArm(p, prefixes, placeable('v', kinds, p.scope.region, include))
        : cellsVectorArm(p, prefixes, placeable('v', kinds, p.scope.region, include), lexical),
    );
    // With terms, the vector arm's weight and the following memories' share follow the partitions' average length (lex_stats).
    const vectorWeight = lexical
      ? sql`${p.fusion.vectorWeight}::float8 * (SELECT s.vector_scale FROM lex_stats AS s)`
      : sql`${p.fusion.vectorWeight}`;
    const followingShare = lexical
      ? sql`${p.fusion.followingShare}::float8 * (SELECT s.following_scale FROM lex_stats AS s)`
      : sql`${p.fusion.followingShare}::float8`;
    // The relevance floor (policy/floor.ts), per arm: what the lexical arm found is related whatever its distance.
    const related = (foundByWords: boolean) =>
      expression(relatedIn(SQL, { foundByWords, distance: verbatim('distance') }, sql`${p.fusion.farthest}::float8`));
    const parts = [sql`SELECT id, ${fusedPart(p, vectorWeight)} AS part, ${related(false)} AS related FROM vector_arm`];
    if (lexical) {
      parts.push(
        sql`SELECT id, ${fusedPart(p, sql`${p.fusion.lexicalWeight}`)} AS part, ${related(true)} AS related FROM lexical_arm`,
      );
    }
    const { region, userId } = p.scope;
    const found = inputs.touch
      ? sql`UPDATE memories AS m
     SET recall_count = m.recall_count + 1,
         last_useful_at = GREATEST(m.last_useful_at, ${p.now}::timestamptz)
    FROM hits
   WHERE m.region = ${region} AND m.user_id = ${userId}::uuid AND m.id = hits.id
  RETURNING ${memoryColumns('m')}, m.superseded_by, m.superseded_at, m.embedding, m.term_count, hits.score, m.embedding <=> ${p.embedding}::vector AS distance`
      : sql`SELECT ${memoryColumns('m')}, m.superseded_by, m.superseded_at, m.embedding, m.term_count, hits.score, m.embedding <=> ${p.embedding}::vector AS distance,
         ${p.now}::timestamptz AS read_at
    FROM memories AS m JOIN hits ON hits.id = m.id
   WHERE m.region = ${region} AND m.user_id = ${userId}::uuid`;
    return sql`
WITH ${join(ctes)}, ranked AS (
  SELECT arms.id, sum(arms.part) AS score
    FROM (${join(parts, ' UNION ALL ')}) AS arms
   GROUP BY arms.id
  HAVING sum(arms.part) > 0 AND bool_or(arms.related)
   ORDER BY score DESC, arms.id
   LIMIT ${p.limit}::int4
), ${followingHits(p, placeable('m', kinds, p.scope.region, include), followingShare)}, kept AS (
  -- The first direct hits keep their place: what follows a hit takes at most its share of the places (decision 0113).
  SELECT r.id FROM ranked AS r
   ORDER BY r.score DESC, r.id
   LIMIT ${keptPlacesIn(SQL, sql`${p.fusion.followerPlaces}::float8`, sql`${p.limit}::int4`)}
), hits AS (
  -- A memory both ranked and following another keeps its better score; the kept ones first, then the best of the rest.
  SELECT c.id, max(c.score) AS score, bool_or(k.id IS NOT NULL) AS kept
    FROM (SELECT id, score FROM ranked UNION ALL SELECT id, score FROM following) AS c
    LEFT JOIN kept AS k ON k.id = c.id
   GROUP BY c.id
  HAVING max(c.score) > 0
   ORDER BY kept DESC, score DESC, c.id
   LIMIT ${p.limit}::int4
), found AS (
  ${found}
), found_words AS (
  -- Each memory found with its lexical score for the query (0 when the lexical arm scored it not, or did not run).
  SELECT f.*, ${lexical ? sql`COALESCE((SELECT s.score FROM lex_scores AS s WHERE s.id = f.id), 0)` : sql`0`}::float8 AS words
    FROM found AS f
)
SELECT t.id::text AS id, t.kind, t.content, t.pinned, t.created_at, t.last_useful_at, t.recall_count,
       t.restatements, t.origin, t.agent, t.client, t.restated_by, t.distance, t.score, t.words, t.term_count,
       -- The other memories found of its kind within the same-subject distance: what the newer-first rule reads (policy/recency.ts).
       ARRAY(SELECT o.id::text FROM found_words AS o
              WHERE o.kind = t.kind AND o.id <> t.id
                AND (o.embedding <=> t.embedding) <= ${param('sameSubject', inputs.sameSubject ?? NO_SUBJECT)}::float8
              ORDER BY 1) AS same_subject,
       ${conflictsOf('t', region)} AS conflicts, ${supersessionOf('t', region)}
  FROM found_words AS t
 ORDER BY ${include ? sql`${predicate(SUPERSEDED, 't', { region })}, ` : verbatim('')}t.score DESC, t.created_at DESC, t.id`;
  },
});

/** A memory as recall answers it. */
export interface RecalledRow extends MemoryRow {
  readonly distance: number;
  readonly score: number;
  readonly words: number;
  readonly term_count: number;
  readonly same_subject: string[] | null;
}
