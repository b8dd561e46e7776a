-- naaba's function roles on PostgreSQL: what each function's login may do, and nothing else — no
-- DDL, no TRUNCATE, no table it does not use (docs/decisions/0069, 0093). One role per function, each
-- with logins of its own (docs/deployment.md §2): the authorizer reads keys; the MCP function serves
-- memories and OAuth and may not write api_keys (grants and revocations go through the owner's
-- routines of 0012_key_writes.sql); the sweeper removes what expired and may not read keys. Keys are
-- issued by the operator as the owner. The CockroachDB twin is ../cockroach/runtime-grants.sql.
--
-- Not a migration: `naaba migrate` runs this file after the migrations, as the schema owner, with
-- {{mcp_role}}, {{authorizer_role}} and {{sweeper_role}} the roles named by --runtime-roles
-- (default naaba_mcp, naaba_authorizer, naaba_sweeper) and {{database}} the current database.
-- GRANT is idempotent, so it runs on every migrate.
--
-- ONE LINE PER TABLE AND ROLE. A migration that adds a table adds its lines here, with the DML the
-- statements of each function need: test/plan/runtime-grants.test.ts fails while a line grants what
-- no statement of that function uses, or a statement's need is not granted. UPDATE and DELETE need
-- SELECT too (their WHERE reads), and so does SELECT … FOR UPDATE need UPDATE. Cascading deletes
-- need nothing on the referencing table here (PostgreSQL runs them as its owner).

GRANT CONNECT ON DATABASE {{database}} TO {{mcp_role}}, {{authorizer_role}}, {{sweeper_role}};
GRANT USAGE ON SCHEMA public TO {{mcp_role}}, {{authorizer_role}}, {{sweeper_role}};

-- The authorizer: a bearer token's key, or an OAuth access token's grant; the schema check.
GRANT SELECT ON TABLE naaba_migrations TO {{authorizer_role}};
GRANT SELECT ON TABLE api_keys TO {{authorizer_role}};
GRANT SELECT ON TABLE oauth_tokens TO {{authorizer_role}};

-- The MCP function: the four tools, the page, OAuth sign-in. Keys, codes and tokens are read
-- (consent, grants); written only through the owner's routines (0012_key_writes.sql,
-- 0024_credential_writes.sql), which take a grant's user and region from the granting key's row.
GRANT SELECT ON TABLE naaba_migrations TO {{mcp_role}};
GRANT SELECT, UPDATE ON TABLE naaba_settings TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE ON TABLE sweeper_state TO {{mcp_role}};
GRANT SELECT ON TABLE api_keys TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE memories TO {{mcp_role}};
GRANT SELECT, INSERT ON TABLE memory_links TO {{mcp_role}};
GRANT SELECT, INSERT, DELETE ON TABLE journal TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE ON TABLE memory_partitions TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE memory_terms TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE memory_partition_terms TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE memory_cells TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE oauth_clients TO {{mcp_role}};
GRANT SELECT ON TABLE oauth_codes TO {{mcp_role}};
GRANT SELECT ON TABLE oauth_tokens TO {{mcp_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE oauth_rate_limits TO {{mcp_role}};
GRANT EXECUTE ON FUNCTION naaba_save_code(text, text, text, text, text, text, text, text, timestamptz, text) TO {{mcp_role}};
GRANT EXECUTE ON FUNCTION naaba_consume_code(text, text, timestamptz) TO {{mcp_role}};
GRANT EXECUTE ON FUNCTION naaba_grant_code(uuid, timestamptz, text, timestamptz, text, timestamptz, text, text) TO {{mcp_role}};
GRANT EXECUTE ON FUNCTION naaba_rotate_refresh(text, timestamptz, text, text, timestamptz, text, timestamptz, timestamptz) TO {{mcp_role}};
GRANT EXECUTE ON FUNCTION naaba_revoke_key(uuid, timestamptz) TO {{mcp_role}};

-- The sweeper: expired memories out (journaled), old journal lines, the vector cells, expired OAuth
-- rows. No key.
GRANT SELECT ON TABLE naaba_migrations TO {{sweeper_role}};
-- The sweeper keeps its walks in sweeper_state, its region's own rows (decision 0151), and writes no
-- GLOBAL row; the naaba_settings grant of older releases is left to their sweepers during a deploy.
GRANT SELECT, INSERT, UPDATE ON TABLE sweeper_state TO {{sweeper_role}};
GRANT SELECT, UPDATE, DELETE ON TABLE memories TO {{sweeper_role}};
GRANT SELECT, INSERT, DELETE ON TABLE journal TO {{sweeper_role}};
GRANT SELECT, UPDATE ON TABLE memory_partitions TO {{sweeper_role}};
GRANT SELECT, UPDATE, DELETE ON TABLE memory_terms TO {{sweeper_role}};
GRANT SELECT, UPDATE, DELETE ON TABLE memory_partition_terms TO {{sweeper_role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE memory_cells TO {{sweeper_role}};
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
REVOKE EXECUTE ON FUNCTION naaba_create_grant(uuid, text, uuid, text, timestamptz, text, text, timestamptz, text, timestamptz, text, text, uuid) FROM {{mcp_role}};
