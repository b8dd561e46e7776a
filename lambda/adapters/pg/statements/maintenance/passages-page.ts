import { PASSAGE_TERMS } from '../../../../memory/lexical.js';
import { postingAt } from '../../sql/postings.js';
import { statement } from '../../sql/statement.js';
import { param, sql } from '../../sql/template.js';

export interface PassagesPageInputs {
  readonly region: string;
  /** Where the walk stopped (the last id walked), or the nil UUID to start. */
  readonly after: string;
  readonly batch: number;
}

/** Longer memories than this are more than one passage: only theirs need a mask (decision 0115). */
const ONE_PASSAGE = param('passageTerms', PASSAGE_TERMS);

/**
 * One page of the walk that writes the passage masks of postings stored without one (decision
 * 0119): the region's next `batch` memories in id order (memories_pkey on PostgreSQL,
 * memories_id on CockroachDB), each with its content when it is longer than one passage and its
 * postings have no mask (the analyzer that cuts it into passages runs in the process, not in SQL).
 * A memory's postings are written together, so its first term's posting, read by its whole key,
 * tells: a memory written with masks costs the walk that one read and no write. A page reads
 * `batch` rows and at most as many postings, however large the region is, and the whole region once.
 */
export const PASSAGES_PAGE = statement<PassagesPageInputs, { id: string; user_id: string; kind: string; content: string | null }>(
  {
    name: 'maintenance/passages-page',
    expects: { regionBatch: true, postgresIndex: 'memories_pkey', cockroachIndex: 'memories@memories_id' },
    render: (p, _inputs, engine) => {
      const first = postingAt('t', 'g', engine);
      return sql`
WITH page AS (
  SELECT m.id, m.user_id, m.kind, m.term_count, m.terms[1] AS term, m.term_tfs[1] AS tf, m.term_count AS dl, m.content
    FROM memories AS m
   WHERE m.region = ${p.region} AND m.id > ${p.after}::uuid
   ORDER BY m.id
   LIMIT ${p.batch}::int4
)
SELECT g.id::text AS id, g.user_id::text AS user_id, g.kind,
       CASE WHEN g.term_count > ${ONE_PASSAGE}::int4 AND EXISTS (
              SELECT 1 FROM memory_terms AS t
               WHERE t.region = ${p.region} AND ${first} AND t.passages IS NULL)
            THEN g.content END AS content
  FROM page AS g
 ORDER BY g.id`;
    },
  },
);
