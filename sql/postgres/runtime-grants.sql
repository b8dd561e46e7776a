-- naaba's runtime role on PostgreSQL: what the functions (and the operator commands that run with
-- their secret: issue-key, revoke-key, list-keys, sweep) may do, and nothing else — no DDL, no
-- TRUNCATE, no table they do not use (docs/decisions/0069). The CockroachDB twin is
-- ../cockroach/runtime-grants.sql.
--
-- Not a migration: `naaba migrate` runs this file after the migrations, as the schema owner, with
-- {{runtime_role}} the role named by --runtime-role (default naaba_runtime) and {{database}} the
-- current database. GRANT is idempotent, so it runs on every migrate.
--
-- ONE LINE PER TABLE. A migration that adds a table adds its line here, with the DML its statements
-- need: test/pg/runtime-role.test.ts fails while a table of the migrated schema has no line, or a
-- line grants what no runtime statement uses. UPDATE and DELETE need SELECT too (their WHERE reads),
-- and so does SELECT … FOR UPDATE need UPDATE. Cascading deletes need nothing on the referencing
-- table here (PostgreSQL runs them as its owner).

GRANT CONNECT ON DATABASE {{database}} TO {{runtime_role}};
GRANT USAGE ON SCHEMA public TO {{runtime_role}};

GRANT SELECT ON TABLE naaba_migrations TO {{runtime_role}};
GRANT SELECT, UPDATE ON TABLE naaba_settings TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE ON TABLE api_keys TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE memories TO {{runtime_role}};
GRANT SELECT, INSERT ON TABLE memory_links TO {{runtime_role}};
GRANT SELECT, INSERT, DELETE ON TABLE journal TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE ON TABLE memory_partitions TO {{runtime_role}};
GRANT SELECT, INSERT, DELETE ON TABLE memory_terms TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE memory_partition_terms TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE memory_cells TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE oauth_clients TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE oauth_codes TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE oauth_tokens TO {{runtime_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE oauth_rate_limits TO {{runtime_role}};
