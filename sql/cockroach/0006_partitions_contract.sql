-- naaba:contract requires=0004_partitions.sql
-- What 0004 replaced, removed once no code older than 0004 runs (docs/deployment.md, "Schema
-- upgrades"). The PostgreSQL twin is ../postgres/0007_partitions_contract.sql. Every statement is
-- safe to run again.
DROP INDEX IF EXISTS memories@memories_lexemes;
ALTER TABLE memories DROP COLUMN IF EXISTS lexemes;
DROP INDEX IF EXISTS memories@memories_expiry;
DROP INDEX IF EXISTS journal@journal_region_at;
DROP INDEX IF EXISTS oauth_codes@oauth_codes_expiry;
DROP INDEX IF EXISTS oauth_tokens@oauth_tokens_expiry;
DROP INDEX IF EXISTS oauth_clients@oauth_clients_created;
