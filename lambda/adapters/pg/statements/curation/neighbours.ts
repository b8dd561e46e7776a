import type { Scope } from '../../../../memory/model.js';
import { not } from '../../../../memory/policy/condition.js';
import { LIVE } from '../../../../memory/policy/expiry.js';
import { SUPERSEDED } from '../../../../memory/policy/supersession.js';
import { predicate } from '../../sql/policy.js';
import { statement } from '../../sql/statement.js';
import { sql, verbatim } from '../../sql/template.js';

export interface NeighboursInputs {
  readonly scope: Scope;
  readonly kind: string;
  /** The new memory's vector, as its literal (`toVectorLiteral`). */
  readonly embedding: string;
  readonly fingerprint: string;
  /** The kind's cutoff; null without a TTL. */
  readonly expiredBefore: Date | null;
  /** Vector candidates: 1, plus the kind's ceiling when it has a TTL, so that expired rows cannot hide the nearest live one. */
  readonly candidates: number;
  /** How many of the nearest current memories to return, nearest first. */
  readonly judged: number;
  /** The new memory's terms, checked: the rarest the partition holds finds the `words` row. */
  readonly terms: readonly string[];
  /** How many holders of that term are read at most (WORDS_READ). */
  readonly wordsRead: number;
}

export interface NeighbourRow {
  readonly role: 'nearest' | 'words' | 'exact';
  readonly id: string;
  readonly content: string | null;
  readonly distance: number | null;
  readonly live: boolean;
}

/**
 * The nearest current memories of the same (region, user, kind) — live, not superseded, at most
 * `judged` of them, nearest first — the nearest current memory among those holding the rarest of
 * the new memory's terms that the partition holds (`words`: read from the kept frequencies, then
 * that term's best `wordsRead` holders — most occurrences, then the shortest, then by id — as the
 * best of each span of memory_terms_ranked, decision 0167; policy/supersession.ts), and any exact
 * restatement (same fingerprint) with whether it is live. The vector read carries only the
 * partition's prefix, so CockroachDB's vector index serves it; liveness is checked on the rows
 * each part returns.
 */
export const NEIGHBOURS = statement<NeighboursInputs, NeighbourRow>({
  name: 'curation/neighbours',
  expects: { vectorSearch: true, postgresIndex: ['memories_user_kind', 'memory_terms_ranked'] },
  render: (p) => {
    const live = (alias: string) => predicate(LIVE, alias, { cutoff: { one: p.expiredBefore } });
    const current = predicate(not(SUPERSEDED), 'n', { region: p.scope.region });
    // The rarest of the new memory's terms that the partition holds (fewest memories, then by term).
    const rarest = sql`SELECT d.term FROM memory_partition_terms AS d
                        WHERE d.region = ${p.scope.region} AND d.user_id = ${p.scope.userId}::uuid AND d.kind = ${p.kind}
                          AND d.term = ANY(${p.terms}::text[]) AND d.df > 0
                        ORDER BY d.df, d.term
                        LIMIT 1`;
    // Its best `wordsRead` holders among its flagged postings or among the others, each one span of memory_terms_ranked.
    const holders = (flagged: boolean) => sql`(SELECT t.memory_id, t.tf, t.dl FROM memory_terms AS t
                     WHERE t.region = ${p.scope.region} AND t.user_id = ${p.scope.userId}::uuid AND t.kind = ${p.kind}
                       AND t.term = (${rarest}) AND t.best = ${verbatim(String(flagged))}
                     ORDER BY t.tf DESC, t.dl, t.memory_id
                     LIMIT ${p.wordsRead}::int4)`;
    return sql`
SELECT * FROM (
  SELECT 'nearest' AS role, n.id::text AS id, n.content, n.distance, true AS live
    FROM (SELECT id, content, pinned, last_useful_at, superseded_by, embedding <=> ${p.embedding}::vector AS distance
            FROM memories
           WHERE region = ${p.scope.region} AND user_id = ${p.scope.userId}::uuid AND kind = ${p.kind}
           ORDER BY embedding <=> ${p.embedding}::vector
           LIMIT ${p.candidates}::int4) AS n
   WHERE ${live('n')} AND ${current}
   ORDER BY n.distance, n.id
   LIMIT ${p.judged}::int4
) AS nearest
UNION ALL
SELECT * FROM (
  SELECT 'words' AS role, w.id::text AS id, w.content, w.distance, true AS live
    FROM (SELECT m.id, m.content, m.pinned, m.last_useful_at, m.superseded_by, m.embedding <=> ${p.embedding}::vector AS distance
            FROM (SELECT h.memory_id FROM (${holders(true)} UNION ALL ${holders(false)}) AS h
                   ORDER BY h.tf DESC, h.dl, h.memory_id
                   LIMIT ${p.wordsRead}::int4) AS h
            JOIN memories AS m
              ON m.region = ${p.scope.region} AND m.user_id = ${p.scope.userId}::uuid AND m.kind = ${p.kind} AND m.id = h.memory_id) AS w
   WHERE ${live('w')} AND ${predicate(not(SUPERSEDED), 'w', { region: p.scope.region })}
   ORDER BY w.distance, w.id
   LIMIT 1
) AS words
UNION ALL
SELECT 'exact' AS role, x.id::text AS id, NULL AS content, NULL AS distance, ${live('x')} AS live
  FROM memories AS x
 WHERE x.region = ${p.scope.region} AND x.user_id = ${p.scope.userId}::uuid AND x.kind = ${p.kind} AND x.fingerprint = ${p.fingerprint}`;
  },
});
