-- naaba 0028 (PostgreSQL, PGlite): each memory keeps how often each of its terms occurs in it
-- (decision 0167), so that its postings can be found again by memory_terms_ranked's whole key once
-- that index is the postings' only one (the contract 0029). The CockroachDB twin is
-- ../cockroach/0025_term_tfs.sql.
--
-- `term_tfs[i]` is the frequency of `terms[i]`, the `tf` of that posting; with the memory's
-- `term_count` (each posting's `dl`) and its flag looked up both ways, a forget, an eviction, an
-- expiry, `naaba reembed` and the passages walk find each posting by key, never by a read of
-- every posting of its term.
--
-- An expansion: older code neither reads nor writes the column. The memories already there get
-- theirs from their postings, in batches (decision 0099), read by the primary key that 0029 drops;
-- a re-run fills only those still without one. Rows that older code writes after this file ran get
-- theirs in 0029, which runs once no older code does.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS term_tfs INT4[];

-- The memories still without their frequencies: it empties as the backfill goes, so that each batch
-- reads only what is not done. Dropped once it is empty.
CREATE INDEX CONCURRENTLY IF NOT EXISTS memories_untallied ON memories (region, id) WHERE term_tfs IS NULL;

-- Statistics first: without them (PGlite runs no autovacuum, and a bulk load analyses nothing)
-- PGlite read each posting below through memory_terms_ranked, by its term alone, and picked each
-- batch by sorting every memory still to do: at 50,000 memories a batch of 100 took 1.1 s.
ANALYZE memories, memory_terms;

-- The next {{batch}} memories without their frequencies, each from its postings in the order of its
-- terms, each posting read by the whole primary key (a term without a posting gets NULL: no
-- statement finds a posting that is not there). A join of the terms to the postings was planned on
-- PGlite as a read of every posting per batch: 0.9 s a batch at 5,000 memories, growing with them.
-- naaba:backfill
UPDATE memories AS m
   SET term_tfs = ARRAY(SELECT (SELECT t.tf FROM memory_terms AS t
                                 WHERE t.region = m.region AND t.user_id = m.user_id AND t.kind = m.kind
                                   AND t.term = u.term AND t.memory_id = m.id)
                          FROM unnest(m.terms) WITH ORDINALITY AS u(term, n)
                         ORDER BY u.n)
 WHERE (m.region, m.id) IN (SELECT u.region, u.id FROM memories AS u WHERE u.term_tfs IS NULL ORDER BY u.region, u.id LIMIT {{batch}});

DROP INDEX CONCURRENTLY IF EXISTS memories_untallied;
