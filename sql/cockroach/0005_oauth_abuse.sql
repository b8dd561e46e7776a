-- OAuth under abuse (issue 21, decisions 0064 and 0067). The PostgreSQL twin is
-- ../postgres/0006_oauth_abuse.sql. Every statement is safe to run again.

-- Requests per client address to the OAuth endpoints. Each region counts the requests it
-- serves: REGIONAL BY ROW, region leading every key, written by that region only.
CREATE TABLE IF NOT EXISTS oauth_rate_limits (
    region       crdb_internal_region NOT NULL,
    address      STRING NOT NULL,
    route        STRING NOT NULL,
    window_start TIMESTAMPTZ NOT NULL,
    hits         INT NOT NULL,
    PRIMARY KEY (region, address, route),
    INDEX oauth_rate_limits_window (region, window_start)
) LOCALITY REGIONAL BY ROW AS region;

-- A registration that no grant has used expires (oauth_clients stays GLOBAL).
ALTER TABLE oauth_clients ADD COLUMN IF NOT EXISTS expires_at TIMESTAMPTZ;
CREATE INDEX IF NOT EXISTS oauth_clients_expiry ON oauth_clients (expires_at);

-- The key typed on the consent page, on the code and on the grant it makes.
ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS granted_by UUID;
CREATE INDEX IF NOT EXISTS api_keys_granted_by ON api_keys (granted_by);
ALTER TABLE oauth_codes ADD COLUMN IF NOT EXISTS granted_by UUID;

-- One consent form, one code; region leads the key, so uniqueness is checked in the region only.
ALTER TABLE oauth_codes ADD COLUMN IF NOT EXISTS form_sha256 STRING;
CREATE UNIQUE INDEX IF NOT EXISTS oauth_codes_form ON oauth_codes (region, form_sha256);

-- The refresh token a token replaced (grace for concurrent refreshes).
ALTER TABLE oauth_tokens ADD COLUMN IF NOT EXISTS parent_sha256 STRING;
CREATE INDEX IF NOT EXISTS oauth_tokens_parent ON oauth_tokens (parent_sha256);
