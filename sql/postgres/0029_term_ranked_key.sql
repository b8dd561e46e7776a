-- naaba:contract requires=0028_term_tfs.sql
-- naaba 0029 (PostgreSQL, PGlite): memory_terms_ranked becomes the postings' only index (decision
-- 0167). Every posting was in two term-ordered indexes, the primary key (partition, term, memory)
-- and memory_terms_ranked (partition, term, flag, most occurrences, shortest, memory); a bulk load
-- spent most of its time in their inserts, and their cost per posting grew as both got a level
-- deeper (decision 0165). Code from 0028 on finds a posting by memory_terms_ranked's whole key (its
-- memory's `term_tfs` and `term_count`, its flag both ways), so the primary key serves no read. No
-- constraint takes its place: a posting is written only with its memory, which is new, or by
-- `naaba reembed` for a term its memory did not hold. CockroachDB keeps its primary key, which is
-- its table (../cockroach/0025_term_tfs.sql).
--
-- A contract: older code's `naaba reembed` names the key in ON CONFLICT. Before the key goes, the
-- memories that older code wrote since 0028 get their frequencies, and the postings of memories
-- that are gone are deleted: between 0028 and this file, code from 0028 that forgot a memory older
-- code had written (no frequencies yet) could not find its postings. Both steps run in batches
-- (decision 0099) and are safe to run again.
CREATE INDEX CONCURRENTLY IF NOT EXISTS memories_untallied ON memories (region, id) WHERE term_tfs IS NULL;

-- Statistics first, as in 0028.
ANALYZE memories, memory_terms;

-- naaba:backfill
UPDATE memories AS m
   SET term_tfs = ARRAY(SELECT (SELECT t.tf FROM memory_terms AS t
                                 WHERE t.region = m.region AND t.user_id = m.user_id AND t.kind = m.kind
                                   AND t.term = u.term AND t.memory_id = m.id)
                          FROM unnest(m.terms) WITH ORDINALITY AS u(term, n)
                         ORDER BY u.n)
 WHERE (m.region, m.id) IN (SELECT u.region, u.id FROM memories AS u WHERE u.term_tfs IS NULL ORDER BY u.region, u.id LIMIT {{batch}});

DROP INDEX CONCURRENTLY IF EXISTS memories_untallied;

-- The next {{batch}} postings whose memory is gone, by row address.
-- naaba:backfill
DELETE FROM memory_terms AS t
 WHERE t.ctid = ANY (ARRAY(SELECT p.ctid FROM memory_terms AS p
                            WHERE NOT EXISTS (SELECT 1 FROM memories AS m WHERE m.region = p.region AND m.id = p.memory_id)
                            LIMIT {{batch}}));

ALTER TABLE memory_terms DROP CONSTRAINT IF EXISTS memory_terms_pkey;
