import type { Scope } from '../../../../memory/model.js';
import { pinned } from '../../../../memory/policy/condition.js';
import { fitsWithoutEvictionIn } from '../../../../memory/policy/eviction.js';
import type { KindCutoff } from '../../../../memory/policy/expiry.js';
import { pinsFitIn } from '../../../../memory/policy/pins.js';
import { cellsMark, kindsParams, lastPlace, liveIn, pinnedCount } from '../../sql/fragments.js';
import { expression, predicate, SQL } from '../../sql/policy.js';
import { countedTerms, flaggedPostings, termChanges, termLists } from '../../sql/postings.js';
import { statement } from '../../sql/statement.js';
import { sql, verbatim } from '../../sql/template.js';

/** An import's memories, postings, links and journal lines, column by column (arrays of equal length). */
export interface ImportMemoriesInputs {
  readonly scope: Scope;
  readonly memories: {
    readonly ids: readonly string[];
    readonly kinds: readonly string[];
    readonly contents: readonly string[];
    readonly fingerprints: readonly string[];
    readonly embeddings: readonly string[];
    readonly lengths: readonly number[];
    readonly pinned: readonly boolean[];
    readonly expires: readonly boolean[];
    readonly createdAt: readonly Date[];
    readonly lastUsefulAt: readonly Date[];
    readonly recallCounts: readonly number[];
    readonly restatements: readonly number[];
    readonly origins: readonly (string | null)[];
    readonly agents: readonly string[];
    readonly clients: readonly string[];
    /** Each memory's restatement sources (JSON). */
    readonly restatedBy: readonly string[];
  };
  readonly postings: {
    readonly ids: readonly string[];
    readonly terms: readonly string[];
    readonly frequencies: readonly number[];
    /** The passages each term occurs in, as masks (LexicalAnalyzer.passages). */
    readonly passages: readonly number[];
  };
  /** Conflict links between the imported memories' ids, each direction given. */
  readonly links: { readonly from: readonly string[]; readonly to: readonly string[] };
  /** Which imported memory (`older`) another (`newer`) replaced, and when; written on memories there before the statement. */
  readonly supersessions: { readonly older: readonly string[]; readonly newer: readonly string[]; readonly at: readonly Date[] };
  readonly journal: {
    readonly at: readonly Date[];
    readonly kinds: readonly string[];
    readonly rules: readonly string[];
    readonly ages: readonly number[];
    readonly recallCounts: readonly number[];
  };
  /** Every kind the memories and lines name, with its cutoff, and (same order) its ceiling. */
  readonly kinds: readonly KindCutoff[];
  readonly ceilings: { readonly kinds: readonly string[]; readonly ceilings: readonly number[] };
  readonly pinLimit: number;
  /** False: write no memory (an import's check, or its step of links and journal lines). */
  readonly writeMemories: boolean;
  /** The size from which a partition is marked for the sweeper's cells (decision 0118). */
  readonly cellsFrom: number;
}

export interface ImportMemoriesRow {
  ok: boolean;
  written: number;
  present: number;
  linked: number;
  journaled: number;
  pins_have: number;
  pins_adding: number;
  /** `kind:have:adding` per kind. */
  room: string[];
}

/**
 * An import: many memories of one user, of several kinds, with their provenance, pins, conflict
 * links, postings and the partitions' statistics, and journal lines — one step of an import (the
 * importer checks the whole file, writes the memories in steps, then the links and lines, each
 * with `writeMemories` saying whether memories are written) — all or nothing, in one
 * statement (decision 0075). Memories equal (same kind and fingerprint) to a live one are already
 * there and are not written again; a link naming one goes to that live memory. Nothing is written
 * unless every kind stays within its ceiling and the user within the pin limit once the new ones are
 * in (an import never evicts: policy/eviction.ts `fitsWithoutEviction`, policy/pins.ts `pinsFit`);
 * the answer says by how much each would pass. A journal line equal to one the user has already is
 * not added again, so importing a file twice changes nothing.
 *
 * A step's work follows its own memories, not the partition's size (decision 0159): the given
 * memories are found by their fingerprints, in one read of the fingerprint index (one read, not one
 * per memory: where stale statistics make the partition look empty, PostgreSQL may read it through
 * memories_user_kind instead, and that is then one read of the partition, as before, not one per
 * memory), and a kind fits when the partition's row count
 * (`memory_partitions`, kept on write: every row, expired ones not yet removed too, so never fewer
 * than the live ones) leaves room; only when it does not are the live ones counted, for the exact
 * answer and the refusal's figures.
 */
export const IMPORT_MEMORIES = statement<ImportMemoriesInputs, ImportMemoriesRow>({
  name: 'transfer/import-memories',
  expects: {
    vectorMutation: true,
    postgresIndex: ['memories_fingerprint', 'memory_partitions_pkey', 'memories_user_kind', 'memories_pinned', 'journal_user_at'],
  },
  render: (p, inputs, engine) => {
    const { region, userId } = p.scope;
    const m = p.memories;
    const kinds = kindsParams(inputs.kinds);
    const fits = fitsWithoutEvictionIn(SQL, verbatim('r.have'), verbatim('r.adding'), verbatim('r.ceiling'));
    const storedFit = fitsWithoutEvictionIn(SQL, verbatim('s.rows'), verbatim('s.adding'), verbatim('s.ceiling'));
    const pinsFit = pinsFitIn(SQL, verbatim('p.have'), verbatim('p.adding'), sql`${p.pinLimit}::int4`);
    return sql`
WITH given AS (
  SELECT g.* FROM unnest(${m.ids}::uuid[], ${m.kinds}::text[], ${m.contents}::text[], ${m.fingerprints}::text[], ${m.embeddings}::text[], ${m.lengths}::int4[], ${m.pinned}::bool[], ${m.expires}::bool[],
                         ${m.createdAt}::timestamptz[], ${m.lastUsefulAt}::timestamptz[], ${m.recallCounts}::int4[], ${m.restatements}::int4[], ${m.origins}::text[], ${m.agents}::text[],
                         ${m.clients}::text[], ${m.restatedBy}::text[])
    AS g(id, kind, content, fingerprint, embedding, dl, pinned, expires, created_at, last_useful_at, recall_count,
         restatements, origin, agent, client, restated_by)
), postings AS (
  SELECT p.id, p.term, p.tf, p.passages, p.n
    FROM unnest(${p.postings.ids}::uuid[], ${p.postings.terms}::text[], ${p.postings.frequencies}::int4[], ${p.postings.passages}::int4[])
         WITH ORDINALITY AS p(id, term, tf, passages, n)
), ${termLists('postings')}, ceilings AS (
  SELECT c.kind, c.ceiling FROM unnest(${p.ceilings.kinds}::text[], ${p.ceilings.ceilings}::int4[]) AS c(kind, ceiling)
), present AS (
  SELECT g.id AS given_id, l.id AS live_id
    FROM (SELECT m.id, m.kind, m.fingerprint FROM memories AS m
           WHERE m.region = ${region} AND m.fingerprint = ANY(${m.fingerprints}::text[]) AND m.user_id = ${userId}::uuid
             AND m.kind = ANY(${p.ceilings.kinds}::text[]) AND ${liveIn('m', kinds)} OFFSET 0) AS l
    JOIN given AS g ON g.kind = l.kind AND g.fingerprint = l.fingerprint
), fresh AS (
  SELECT g.* FROM given AS g WHERE NOT EXISTS (SELECT 1 FROM present AS p WHERE p.given_id = g.id)
), stored AS (
  SELECT c.kind, c.ceiling,
         COALESCE((SELECT s.memories FROM memory_partitions AS s
                    WHERE s.region = ${region} AND s.user_id = ${userId}::uuid AND s.kind = c.kind), 0) AS rows,
         (SELECT count(*) FROM fresh AS f WHERE f.kind = c.kind) AS adding
    FROM ceilings AS c
), room AS (
  SELECT s.kind, s.ceiling, s.adding,
         CASE WHEN ${expression(storedFit)} THEN s.rows
              ELSE (SELECT count(*) FROM memories AS m
                     WHERE m.region = ${region} AND m.user_id = ${userId}::uuid AND m.kind = s.kind AND ${liveIn('m', kinds)})
         END AS have
    FROM stored AS s
), pins AS (
  SELECT ${pinnedCount(p.scope)} AS have,
         (SELECT count(*) FROM fresh AS f WHERE ${predicate(pinned, 'f', {})}) AS adding
), allowed AS (
  SELECT NOT EXISTS (SELECT 1 FROM room AS r WHERE NOT ${expression(fits)})
     AND (SELECT ${expression(pinsFit)} FROM pins AS p) AS ok
), written AS (
  INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, terms, term_tfs, term_count, pinned, expires,
                        created_at, last_useful_at, recall_count, restatements, origin, origin_seq, agent, client, restated_by)
  SELECT f.id, ${region}, ${userId}::uuid, f.kind, f.content, f.fingerprint, f.embedding::vector,
         COALESCE(t.terms, ARRAY[]::text[]), COALESCE(t.tfs, ARRAY[]::int4[]), f.dl, f.pinned, f.expires,
         f.created_at, f.last_useful_at, f.recall_count, f.restatements, f.origin,
         CASE WHEN f.origin IS NOT NULL THEN ${lastPlace(p.scope, sql`f.origin`, sql`f.kind`)} + f.place END,
         f.agent, f.client, f.restated_by::jsonb
    FROM (SELECT f.*, row_number() OVER (PARTITION BY f.origin, f.kind ORDER BY f.created_at, f.id) AS place
            FROM fresh AS f) AS f
    LEFT JOIN term_lists AS t ON t.id = f.id
   WHERE (SELECT ok FROM allowed) AND ${p.writeMemories}::bool
  ON CONFLICT DO NOTHING
  RETURNING id, kind, term_count
), new_postings AS (
  SELECT w.kind, p.term, p.id AS memory_id, p.tf, w.term_count AS dl, p.passages FROM postings AS p JOIN written AS w ON w.id = p.id
), ${flaggedPostings('new_postings', region, userId)}, posted AS (
  INSERT INTO memory_terms (region, user_id, kind, term, memory_id, tf, dl, passages, best)
  SELECT ${region}, ${userId}::uuid, f.kind, f.term, f.memory_id, f.tf, f.dl, f.passages, f.best FROM posting_flags AS f
  RETURNING 1
), term_changes AS (
  ${termChanges('posting_flags')}
), rarity AS (
  ${countedTerms('term_changes', region, userId)}
  RETURNING 1
), counted AS (
  INSERT INTO memory_partitions AS c (region, user_id, kind, memories, term_total, writes${cellsMark.column(engine)})
  SELECT ${region}, ${userId}::uuid, '', 0, 0, 1${cellsMark.value(engine, sql`0`, p.cellsFrom)} WHERE ${p.writeMemories}::bool
  UNION ALL
  SELECT ${region}, ${userId}::uuid, c.kind, (SELECT count(*) FROM written AS w WHERE w.kind = c.kind),
         (SELECT COALESCE(sum(w.term_count), 0) FROM written AS w WHERE w.kind = c.kind), 1${cellsMark.value(engine, sql`(SELECT count(*) FROM written AS w WHERE w.kind = c.kind)`, p.cellsFrom)}
    FROM ceilings AS c WHERE ${p.writeMemories}::bool
  ON CONFLICT (region, user_id, kind) DO UPDATE
     SET memories = c.memories + excluded.memories, term_total = c.term_total + excluded.term_total, writes = c.writes + 1${cellsMark.kept(engine, 'c', p.cellsFrom)}
  RETURNING 1
), resolved AS (
  SELECT w.id AS given_id, w.id AS final_id FROM written AS w
  UNION ALL
  SELECT p.given_id, p.live_id FROM present AS p WHERE (SELECT ok FROM allowed)
), linked AS (
  INSERT INTO memory_links (memory_id, linked_id, region, user_id)
  SELECT a.final_id, b.final_id, ${region}, ${userId}::uuid
    FROM unnest(${p.links.from}::uuid[], ${p.links.to}::uuid[]) AS k(a, b)
    JOIN resolved AS a ON a.given_id = k.a
    JOIN resolved AS b ON b.given_id = k.b
   WHERE a.final_id <> b.final_id
  ON CONFLICT DO NOTHING
  RETURNING 1
), superseded AS (
  -- On memories there before this statement (an import's last step): a row it inserts is not visible to its own UPDATE.
  UPDATE memories AS m
     SET superseded_by = s.newer, superseded_at = s.at
    FROM (SELECT a.live_id AS older, b.live_id AS newer, k.at
            FROM unnest(${p.supersessions.older}::uuid[], ${p.supersessions.newer}::uuid[], ${p.supersessions.at}::timestamptz[]) AS k(older, newer, at)
            JOIN present AS a ON a.given_id = k.older
            JOIN present AS b ON b.given_id = k.newer
           WHERE a.live_id <> b.live_id AND (SELECT ok FROM allowed)) AS s
   WHERE m.region = ${region} AND m.user_id = ${userId}::uuid AND m.id = s.older AND m.superseded_by IS NULL
  RETURNING 1
), journaled AS (
  INSERT INTO journal (id, region, user_id, at, kind, rule, age_s, recall_count)
  SELECT gen_random_uuid(), ${region}, ${userId}::uuid, j.at, j.kind, j.rule, j.age_s, j.recall_count
    FROM unnest(${p.journal.at}::timestamptz[], ${p.journal.kinds}::text[], ${p.journal.rules}::text[], ${p.journal.ages}::int8[], ${p.journal.recallCounts}::int4[]) AS j(at, kind, rule, age_s, recall_count)
   WHERE (SELECT ok FROM allowed)
     AND NOT EXISTS (SELECT 1 FROM journal AS e
                      WHERE e.region = ${region} AND e.user_id = ${userId}::uuid AND e.at = j.at AND e.kind = j.kind AND e.rule = j.rule
                        AND e.age_s = j.age_s AND e.recall_count = j.recall_count)
  RETURNING 1
)
SELECT (SELECT ok FROM allowed) AS ok,
       (SELECT count(*) FROM written)::int4 AS written,
       (SELECT count(*) FROM present)::int4 AS present,
       (SELECT count(*) FROM linked)::int4 AS linked,
       (SELECT count(*) FROM superseded)::int4 AS superseded,
       (SELECT count(*) FROM journaled)::int4 AS journaled,
       (SELECT count(*) FROM posted)::int4 AS posted,
       (SELECT count(*) FROM rarity)::int4 AS rarity,
       (SELECT count(*) FROM counted)::int4 AS counted,
       (SELECT have FROM pins)::int4 AS pins_have,
       (SELECT adding FROM pins)::int4 AS pins_adding,
       ARRAY(SELECT r.kind || ':' || CAST(r.have AS TEXT) || ':' || CAST(r.adding AS TEXT) FROM room AS r ORDER BY r.kind) AS room`;
  },
});
