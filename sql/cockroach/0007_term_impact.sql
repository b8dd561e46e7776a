-- naaba 0007 (CockroachDB): a term's postings in the order the lexical arm wants them, so that it
-- reads the best few instead of all (decision 0078); the PostgreSQL twin is
-- ../postgres/0008_term_impact.sql. memory_id is part of the primary key, so every secondary
-- index carries it already. Region leads, written out (REGIONAL BY ROW, like every index here).
CREATE INDEX IF NOT EXISTS memory_terms_impact ON memory_terms (region, user_id, kind, term, tf DESC, dl);
