-- naaba 0004 (PostgreSQL, PGlite): OAuth 2.1 sign-in for MCP clients (docs/decisions/0054).
-- The CockroachDB twin is ../cockroach/0003_oauth.sql.
--
-- A grant is a key: an api_keys row with the client that holds it and no token of its own. Its
-- tokens (short-lived access tokens, rotating refresh tokens) are rows of oauth_tokens, stored as
-- SHA-256 like keys; revoking the key (naaba revoke-key) ends every token of the grant.
ALTER TABLE api_keys ALTER COLUMN token_sha256 DROP NOT NULL;
ALTER TABLE api_keys ADD COLUMN client_id TEXT;

-- Dynamically registered clients (RFC 7591): public clients, no secret.
CREATE TABLE oauth_clients (
    client_id     TEXT PRIMARY KEY,
    client_name   TEXT NOT NULL,
    -- JSON array of the exact redirect URIs.
    redirect_uris TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL
);
-- The registration window counts rows by creation time.
CREATE INDEX oauth_clients_created ON oauth_clients (created_at);

-- Authorization codes: single use, a minute to live. key_id is the grant the code made, so a
-- second use can revoke it.
CREATE TABLE oauth_codes (
    region         TEXT NOT NULL,
    code_sha256    TEXT NOT NULL,
    client_id      TEXT NOT NULL,
    user_id        UUID NOT NULL,
    agent          TEXT NOT NULL,
    redirect_uri   TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    resource       TEXT NOT NULL,
    expires_at     TIMESTAMPTZ NOT NULL,
    used_at        TIMESTAMPTZ,
    key_id         UUID,
    PRIMARY KEY (region, code_sha256)
);
CREATE INDEX oauth_codes_expiry ON oauth_codes (region, expires_at);

-- Access and refresh tokens of grants. A refresh token is replaced once; presenting it again
-- revokes the grant (its family).
CREATE TABLE oauth_tokens (
    token_sha256 TEXT PRIMARY KEY,
    key_id       UUID NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
    expires_at   TIMESTAMPTZ NOT NULL,
    replaced_at  TIMESTAMPTZ
);
CREATE INDEX oauth_tokens_expiry ON oauth_tokens (expires_at);
