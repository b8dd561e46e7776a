-- naaba:contract requires=0023_term_ranked.sql
-- naaba 0024 (CockroachDB): what 0023's memory_terms_ranked replaces, removed once no code older
-- than 0023 runs (docs/deployment.md, "Schema upgrades"; decision 0160). The PostgreSQL twin is
-- ../postgres/0027_term_ranked_contract.sql. Every statement is safe to run again.
DROP INDEX IF EXISTS memory_terms@memory_terms_impact;
DROP INDEX IF EXISTS memory_terms@memory_terms_best;
