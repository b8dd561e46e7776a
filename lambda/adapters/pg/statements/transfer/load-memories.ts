import type { Scope } from '../../../../memory/model.js';
import { cellsMark } from '../../sql/fragments.js';
import { countedTerms, flaggedPostings, termChanges, termLists } from '../../sql/postings.js';
import { statement } from '../../sql/statement.js';
import { sql } from '../../sql/template.js';

export interface LoadMemoriesInputs {
  readonly scope: Scope;
  readonly kind: string;
  /** The memories column by column: ids, contents, fingerprints, vector literals, lengths in terms. */
  readonly ids: readonly string[];
  readonly contents: readonly string[];
  readonly fingerprints: readonly string[];
  readonly embeddings: readonly string[];
  readonly lengths: readonly number[];
  /** Their creation (and last usefulness). */
  readonly at: Date;
  /** Their postings: memory id, term (checked), frequency. */
  readonly postingIds: readonly string[];
  readonly postingTerms: readonly string[];
  readonly postingFrequencies: readonly number[];
  /** The passages each posting's term occurs in, as masks (LexicalAnalyzer.passages). */
  readonly postingPassages: readonly number[];
  /** Whether they go into the expiry index: the kind has a TTL. */
  readonly expires: boolean;
  readonly agent: string;
  readonly client: string;
  /** The size from which the partition is marked for the sweeper's cells (decision 0118). */
  readonly cellsFrom: number;
}

/**
 * Many memories of one partition at once, with their postings and the partition's statistics, for
 * loads known to fit under the ceiling (benchmarks' bulk users, tests' seeds): no eviction, no
 * duplicate check, no journal.
 */
export const LOAD_MEMORIES = statement<LoadMemoriesInputs, { written: number }>({
  name: 'transfer/load-memories',
  expects: { vectorMutation: true },
  render: (p, _inputs, engine) => {
    const { region, userId } = p.scope;
    return sql`
WITH given AS (
  SELECT g.id, g.content, g.fingerprint, g.embedding, g.dl
    FROM unnest(${p.ids}::uuid[], ${p.contents}::text[], ${p.fingerprints}::text[], ${p.embeddings}::text[], ${p.lengths}::int4[]) AS g(id, content, fingerprint, embedding, dl)
), postings AS (
  SELECT p.id, p.term, p.tf, p.passages, p.n
    FROM unnest(${p.postingIds}::uuid[], ${p.postingTerms}::text[], ${p.postingFrequencies}::int4[], ${p.postingPassages}::int4[])
         WITH ORDINALITY AS p(id, term, tf, passages, n)
), ${termLists('postings')}, written AS (
  INSERT INTO memories (id, region, user_id, kind, content, fingerprint, embedding, terms, term_tfs, term_count, expires,
                        created_at, last_useful_at, agent, client)
  SELECT g.id, ${region}, ${userId}::uuid, ${p.kind}, g.content, g.fingerprint, g.embedding::vector,
         COALESCE(t.terms, ARRAY[]::text[]), COALESCE(t.tfs, ARRAY[]::int4[]), g.dl, ${p.expires}::bool,
         ${p.at}::timestamptz, ${p.at}::timestamptz, ${p.agent}, ${p.client}
    FROM given AS g LEFT JOIN term_lists AS t ON t.id = g.id
  RETURNING id
), new_postings AS (
  SELECT ${p.kind}::text AS kind, p.term, p.id AS memory_id, p.tf, g.dl, p.passages FROM postings AS p JOIN given AS g ON g.id = p.id
), ${flaggedPostings('new_postings', region, userId, 'per term')}, posted AS (
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
  SELECT ${region}, ${userId}::uuid, ${p.kind}, count(*), COALESCE(sum(dl), 0), 1${cellsMark.value(engine, sql`count(*)`, p.cellsFrom)} FROM given
  ON CONFLICT (region, user_id, kind) DO UPDATE
     SET memories = c.memories + excluded.memories, term_total = c.term_total + excluded.term_total, writes = c.writes + 1${cellsMark.kept(engine, 'c', p.cellsFrom)}
  RETURNING 1
)
SELECT (SELECT count(*) FROM written)::int4 AS written, (SELECT count(*) FROM posted)::int4 AS posted`;
  },
});
