-- naaba's runtime role on CockroachDB: what the functions (and the operator commands that run with
-- their secret: issue-key, revoke-key, list-keys, sweep) may do, and nothing else — no DDL, no
-- TRUNCATE, no table they do not use (docs/decisions/0069). The PostgreSQL twin is
-- ../postgres/runtime-grants.sql; the runtime statements are the same on both engines, so the lines
-- are too, but for one difference noted below.
--
-- Not a migration: `naaba migrate` runs this file after the migrations, as the database owner,
-- statement by statement (each GRANT is a schema change on CockroachDB), with {{runtime_role}} the
-- role named by --runtime-role (default naaba_runtime) and {{database}} the current database.
--
-- ONE LINE PER TABLE. A migration that adds a table adds its line here, with the DML its statements
-- need: test/pg/runtime-role.test.ts fails while a table the migrations create has no line.
-- CockroachDB before v26.3 runs an ON DELETE CASCADE with the privileges of the user who deleted
-- the parent row (cockroachdb/cockroach#172267), so a table that cascades from one the role deletes
-- from needs DELETE too: memory_links, which `forget`, eviction and expiry empty through memories.

GRANT CONNECT ON DATABASE {{database}} TO {{runtime_role}};
GRANT USAGE ON SCHEMA public TO {{runtime_role}};

GRANT SELECT ON TABLE naaba_migrations TO {{runtime_role}};
GRANT SELECT, UPDATE ON TABLE naaba_settings TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE ON TABLE api_keys TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE memories TO {{runtime_role}};
GRANT SELECT, INSERT, DELETE ON TABLE memory_links TO {{runtime_role}};
GRANT SELECT, INSERT, DELETE ON TABLE journal TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE ON TABLE memory_partitions TO {{runtime_role}};
GRANT SELECT, INSERT, DELETE ON TABLE memory_terms TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE memory_partition_terms TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE oauth_clients TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE oauth_codes TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE oauth_tokens TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE oauth_rate_limits TO {{runtime_role}};
