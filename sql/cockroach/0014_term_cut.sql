-- naaba 0014 (CockroachDB): a lexical bound by construction (docs/decisions/0101); the PostgreSQL
-- twin, ../postgres/0016_term_cut.sql, says what each column is for. Recall reads a term held by
-- more than LEXICAL.postingsPerTerm memories of a partition from its flagged postings only: a
-- lookup into memory_terms_best with `best` a constant, which holds at most
-- LEXICAL.postingsFlagged rows per (partition, term) whatever the plan does with a LIMIT.
-- memory_id is part of the primary key, so the index carries it as its last key column. Region
-- leads, written out (REGIONAL BY ROW, like every index here). Every statement is safe to run
-- again; the columns' defaults are backfilled by the schema changer, online.
ALTER TABLE memory_terms ADD COLUMN IF NOT EXISTS best BOOL NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS memory_terms_best ON memory_terms (region, user_id, kind, term, tf DESC, dl) WHERE best;

ALTER TABLE memory_partition_terms ADD COLUMN IF NOT EXISTS best INT4 NOT NULL DEFAULT 0;
ALTER TABLE memory_partition_terms ADD COLUMN IF NOT EXISTS cut_tf INT4;
ALTER TABLE memory_partition_terms ADD COLUMN IF NOT EXISTS cut_dl INT4;
ALTER TABLE memory_partition_terms ADD COLUMN IF NOT EXISTS cut_id UUID;
ALTER TABLE memory_partition_terms ADD COLUMN IF NOT EXISTS stale BOOL NOT NULL DEFAULT true;
CREATE INDEX IF NOT EXISTS memory_partition_terms_stale ON memory_partition_terms (region) WHERE stale;
