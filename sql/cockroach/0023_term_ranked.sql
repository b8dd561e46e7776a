-- naaba 0023 (CockroachDB): one index for a term's postings in ranking order, flagged ones first
-- (decision 0160); the PostgreSQL twin, ../postgres/0026_term_ranked.sql, says what each span is
-- for. It replaces memory_terms_impact and memory_terms_best (dropped by the contract 0024): a
-- flagged posting costs one secondary entry instead of two, so a remember writes one KV fewer per
-- term, and an eviction deletes one fewer. memory_id is part of the primary key, so the index
-- carries it as its last key column. Region leads, written out (REGIONAL BY ROW, like every index
-- here). Safe to run again; built by the schema changer online.
CREATE INDEX IF NOT EXISTS memory_terms_ranked ON memory_terms (region, user_id, kind, term, best, tf DESC, dl);
