-- naaba 0006 (PostgreSQL, PGlite): OAuth under abuse (issue 21, decisions 0064 and 0067).
-- The CockroachDB twin is ../cockroach/0005_oauth_abuse.sql.

-- Requests per client address to the OAuth endpoints: one row per (region, address, route),
-- counting in a fixed window that starts at the first request after the last window ended.
CREATE TABLE oauth_rate_limits (
    region       TEXT NOT NULL,
    address      TEXT NOT NULL,
    route        TEXT NOT NULL,
    window_start TIMESTAMPTZ NOT NULL,
    hits         INT NOT NULL,
    PRIMARY KEY (region, address, route)
);
-- The sweeper deletes windows that ended long ago.
CREATE INDEX oauth_rate_limits_window ON oauth_rate_limits (region, window_start);

-- A registration that no grant has used expires; the first grant clears expires_at. Clients
-- registered before this migration have none and never expire.
ALTER TABLE oauth_clients ADD COLUMN expires_at TIMESTAMPTZ;
CREATE INDEX oauth_clients_expiry ON oauth_clients (expires_at);

-- The key typed on the consent page, on the code and on the grant it makes: re-authorizing the
-- same client with the same key replaces the grant, and revoking the key ends its grants.
ALTER TABLE api_keys ADD COLUMN granted_by UUID;
CREATE INDEX api_keys_granted_by ON api_keys (granted_by);
ALTER TABLE oauth_codes ADD COLUMN granted_by UUID;

-- The SHA-256 of the consent form's one-time value: one form, one code.
ALTER TABLE oauth_codes ADD COLUMN form_sha256 TEXT;
CREATE UNIQUE INDEX oauth_codes_form ON oauth_codes (region, form_sha256);

-- The refresh token a token replaced: concurrent refreshes of one token share a short grace,
-- and the first use of a replacement ends its parent and its siblings.
ALTER TABLE oauth_tokens ADD COLUMN parent_sha256 TEXT;
CREATE INDEX oauth_tokens_parent ON oauth_tokens (parent_sha256);
