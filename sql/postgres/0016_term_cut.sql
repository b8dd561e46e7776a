-- naaba 0016 (PostgreSQL, PGlite): a lexical bound by construction (docs/decisions/0101). The
-- CockroachDB twin is ../cockroach/0014_term_cut.sql.
--
-- Each (partition, term) keeps a flagged set of its best postings (most occurrences, then the
-- shortest memory, then the memory id), never more than LEXICAL.postingsFlagged of them. Recall
-- reads a term held by more than LEXICAL.postingsPerTerm memories of a partition from its flagged
-- postings only, through the partial index below, which holds nothing else: the bound is what the
-- index holds, not a LIMIT an optimizer may move.
--
-- An expansion: older code inserts postings unflagged (the default) and leaves the counts below
-- as they are, which the sweeper's ranking puts right. Postings written before this migration are
-- unflagged; their terms are marked for ranking (the default true of `stale`), so until the sweeper
-- has ranked them a term in more than postingsPerTerm memories of a partition brings none of its
-- postings to recall (a term in fewer is read whole, as before).
ALTER TABLE memory_terms ADD COLUMN best BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX CONCURRENTLY IF NOT EXISTS memory_terms_best ON memory_terms (region, user_id, kind, term, tf DESC, dl, memory_id) WHERE best;

-- How many of the term's postings are flagged, and the last flagged one's place (the cut), or
-- NULL when no cut is known (every posting flagged, or the flagged set is not the best ones);
-- `stale` when the flagged set may miss some of the best postingsPerTerm, for the sweeper to rank.
ALTER TABLE memory_partition_terms ADD COLUMN best INT4 NOT NULL DEFAULT 0;
ALTER TABLE memory_partition_terms ADD COLUMN cut_tf INT4;
ALTER TABLE memory_partition_terms ADD COLUMN cut_dl INT4;
ALTER TABLE memory_partition_terms ADD COLUMN cut_id UUID;
ALTER TABLE memory_partition_terms ADD COLUMN stale BOOLEAN NOT NULL DEFAULT true;
CREATE INDEX CONCURRENTLY IF NOT EXISTS memory_partition_terms_stale ON memory_partition_terms (region) WHERE stale;
