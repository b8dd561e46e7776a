-- naaba's function roles on CockroachDB: what each function's login may do, and nothing else — no
-- DDL, no TRUNCATE, no table it does not use (docs/decisions/0069, 0093). The PostgreSQL twin is
-- ../postgres/runtime-grants.sql, which says what each role is for; the runtime statements are the
-- same on both engines, so the lines are too, but for the differences noted below.
--
-- Not a migration: `naaba migrate` runs this file after the migrations, as the database owner,
-- statement by statement (each GRANT is a schema change on CockroachDB), with {{mcp_role}},
-- {{authorizer_role}} and {{sweeper_role}} the roles named by --runtime-roles (default naaba_mcp,
-- naaba_authorizer, naaba_sweeper) and {{database}} the current database.
--
-- ONE LINE PER TABLE AND ROLE. CockroachDB before v26.3 runs an ON DELETE CASCADE with the
-- privileges of the user who deleted the parent row (cockroachdb/cockroach#172267), so a table that
-- cascades from one a role deletes from needs DELETE too: memory_links, which `forget`, eviction and
-- expiry empty through memories. CockroachDB has no vector cells (its vector index does their work).

GRANT CONNECT ON DATABASE {{database}} TO {{mcp_role}}, {{authorizer_role}}, {{sweeper_role}};
GRANT USAGE ON SCHEMA public TO {{mcp_role}}, {{authorizer_role}}, {{sweeper_role}};

-- The authorizer.
GRANT SELECT ON TABLE naaba_migrations TO {{authorizer_role}};
GRANT SELECT ON TABLE api_keys TO {{authorizer_role}};
GRANT SELECT ON TABLE oauth_tokens TO {{authorizer_role}};

-- The MCP function.
GRANT SELECT ON TABLE naaba_migrations TO {{mcp_role}};
GRANT SELECT, UPDATE ON TABLE naaba_settings TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE ON TABLE sweeper_state TO {{mcp_role}};
GRANT SELECT ON TABLE api_keys TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE memories TO {{mcp_role}};
GRANT SELECT, INSERT, DELETE ON TABLE memory_links TO {{mcp_role}};
GRANT SELECT, INSERT, DELETE ON TABLE journal TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE ON TABLE memory_partitions TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE memory_terms TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE memory_partition_terms TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE oauth_clients TO {{mcp_role}};
GRANT SELECT ON TABLE oauth_codes TO {{mcp_role}};
GRANT SELECT ON TABLE oauth_tokens TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE oauth_rate_limits TO {{mcp_role}};
GRANT EXECUTE ON FUNCTION naaba_save_code(STRING, crdb_internal_region, STRING, STRING, STRING, STRING, STRING, STRING, TIMESTAMPTZ, STRING) TO {{mcp_role}};
GRANT EXECUTE ON FUNCTION naaba_consume_code(crdb_internal_region, STRING, TIMESTAMPTZ) TO {{mcp_role}};
GRANT EXECUTE ON FUNCTION naaba_grant_code(UUID, TIMESTAMPTZ, STRING, TIMESTAMPTZ, STRING, TIMESTAMPTZ, crdb_internal_region, STRING) TO {{mcp_role}};
GRANT EXECUTE ON FUNCTION naaba_rotate_refresh(STRING, TIMESTAMPTZ, STRING, STRING, TIMESTAMPTZ, STRING, TIMESTAMPTZ, TIMESTAMPTZ) TO {{mcp_role}};
GRANT EXECUTE ON FUNCTION naaba_revoke_key(UUID, TIMESTAMPTZ) TO {{mcp_role}};

-- The sweeper.
GRANT SELECT ON TABLE naaba_migrations TO {{sweeper_role}};
-- The sweeper keeps its walks in sweeper_state, its region's own rows (decision 0151), and writes no
-- GLOBAL row; the naaba_settings grant of older releases is left to their sweepers during a deploy.
GRANT SELECT, INSERT, UPDATE ON TABLE sweeper_state TO {{sweeper_role}};
GRANT SELECT, UPDATE, DELETE ON TABLE memories TO {{sweeper_role}};
GRANT DELETE ON TABLE memory_links TO {{sweeper_role}};
GRANT SELECT, INSERT, DELETE ON TABLE journal TO {{sweeper_role}};
GRANT SELECT, UPDATE ON TABLE memory_partitions TO {{sweeper_role}};
GRANT SELECT, UPDATE, DELETE ON TABLE memory_terms TO {{sweeper_role}};
GRANT SELECT, UPDATE, DELETE ON TABLE memory_partition_terms TO {{sweeper_role}};
GRANT SELECT, DELETE ON TABLE oauth_clients TO {{sweeper_role}};
GRANT SELECT, DELETE ON TABLE oauth_codes TO {{sweeper_role}};
GRANT SELECT, DELETE ON TABLE oauth_tokens TO {{sweeper_role}};
GRANT SELECT, DELETE ON TABLE oauth_rate_limits TO {{sweeper_role}};

-- What earlier releases granted and no function may hold any more (decision 0130): `naaba migrate`
-- otherwise only grants, so these take back, on every run, the MCP function's direct writes of codes
-- and tokens and the grant routine that took a user and a region as arguments. REVOKE of what a role
-- does not hold is a no-op.
REVOKE INSERT, UPDATE, DELETE ON TABLE oauth_codes FROM {{mcp_role}};
REVOKE INSERT, UPDATE, DELETE ON TABLE oauth_tokens FROM {{mcp_role}};
REVOKE EXECUTE ON FUNCTION naaba_create_grant(UUID, STRING, UUID, STRING, TIMESTAMPTZ, STRING, STRING, TIMESTAMPTZ, STRING, TIMESTAMPTZ, crdb_internal_region, STRING, UUID) FROM {{mcp_role}};
