-- naaba:contract requires=0026_term_ranked.sql
-- naaba 0027 (PostgreSQL, PGlite): what 0026's memory_terms_ranked replaces, removed once no code
-- older than 0026 runs (docs/deployment.md, "Schema upgrades"; decision 0160). The CockroachDB twin
-- is ../cockroach/0024_term_ranked_contract.sql. Older code's statements still run without them
-- (memory_terms_ranked holds what each read), but its plans were checked against these names.
DROP INDEX CONCURRENTLY IF EXISTS memory_terms_impact;
DROP INDEX CONCURRENTLY IF EXISTS memory_terms_best;
