-- naaba 0019 (CockroachDB): passages for the lexical arm (docs/decisions/0115); the PostgreSQL
-- twin, ../postgres/0021_term_passages.sql, says what the column holds. A nullable column without
-- a default: an online schema change that rewrites no row. Safe to run again.
ALTER TABLE memory_terms ADD COLUMN IF NOT EXISTS passages INT4;
