-- naaba 0008 (PostgreSQL, PGlite): a term's postings in the order the lexical arm wants them, so
-- that it reads the best few instead of all (decision 0078). Within a partition and a term: most
-- occurrences first, then the shortest memory (BM25's order for a term, up to ties in the length
-- normalisation); recall reads at most LEXICAL.postingsPerTerm of them. The CockroachDB twin is
-- ../cockroach/0007_term_impact.sql.
CREATE INDEX CONCURRENTLY IF NOT EXISTS memory_terms_impact ON memory_terms (region, user_id, kind, term, tf DESC, dl) INCLUDE (memory_id);
