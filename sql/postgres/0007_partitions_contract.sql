-- naaba:contract requires=0005_partitions.sql
-- naaba 0007 (PostgreSQL, PGlite): what 0005 replaced, removed once no code older than 0005 runs
-- (docs/deployment.md, "Schema upgrades"). The CockroachDB twin is ../cockroach/0006_partitions_contract.sql.
-- The lexical arm reads postings now; the sweeper walks memories_expiring.
ALTER TABLE memories DROP COLUMN lexemes;
DROP INDEX memories_expiry;
