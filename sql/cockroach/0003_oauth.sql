-- OAuth 2.1 sign-in for MCP clients (docs/decisions/0054). The PostgreSQL twin is
-- ../postgres/0004_oauth.sql. Every statement is safe to run again.
--
-- A grant is a key: an api_keys row with the client that holds it and no token of its own. Its
-- tokens are rows of oauth_tokens, stored as SHA-256 like keys.
ALTER TABLE api_keys ALTER COLUMN token_sha256 DROP NOT NULL;
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS client_id STRING;

-- Registered clients: GLOBAL, as keys are, so every region's consent page and token endpoint
-- reads them locally; written once per registration.
CREATE TABLE IF NOT EXISTS oauth_clients (
    client_id     STRING PRIMARY KEY,
    client_name   STRING NOT NULL,
    redirect_uris STRING NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    INDEX oauth_clients_created (created_at)
) LOCALITY GLOBAL;

-- Codes live a minute in the region whose consent page made them and whose token endpoint
-- redeems them: REGIONAL BY ROW, region leading every key.
CREATE TABLE IF NOT EXISTS oauth_codes (
    region         crdb_internal_region NOT NULL,
    code_sha256    STRING NOT NULL,
    client_id      STRING NOT NULL,
    user_id        UUID NOT NULL,
    agent          STRING NOT NULL,
    redirect_uri   STRING NOT NULL,
    code_challenge STRING NOT NULL,
    resource       STRING NOT NULL,
    expires_at     TIMESTAMPTZ NOT NULL,
    used_at        TIMESTAMPTZ,
    key_id         UUID,
    PRIMARY KEY (region, code_sha256),
    INDEX oauth_codes_expiry (region, expires_at)
) LOCALITY REGIONAL BY ROW AS region;

-- Tokens: GLOBAL like keys, so that every region's authorizer finds any token (another region's
-- is a 403, not a 401). Access tokens are written once an hour per grant, at refresh.
CREATE TABLE IF NOT EXISTS oauth_tokens (
    token_sha256 STRING PRIMARY KEY,
    key_id       UUID NOT NULL,
    kind         STRING NOT NULL CHECK (kind IN ('access', 'refresh')),
    expires_at   TIMESTAMPTZ NOT NULL,
    replaced_at  TIMESTAMPTZ,
    INDEX oauth_tokens_expiry (expires_at)
) LOCALITY GLOBAL;
