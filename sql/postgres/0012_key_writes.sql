-- naaba 0012 (PostgreSQL, PGlite): the only writes of api_keys the functions make, as routines
-- owned by the schema owner (docs/decisions/0093). The MCP function reads keys but may not write
-- them: an OAuth grant (a key its client holds) is made, and a key or grant revoked, through these
-- two only, with the owner's rights. A compromised MCP function can therefore not mint a key with
-- a token of its choosing. The CockroachDB twin is ../cockroach/0010_key_writes.sql.
--
-- An expansion: older code keeps writing the table as before where its login may.
--
-- naaba_create_grant: the grant, its first two tokens, the code's link to it, the end of the
-- client's earlier grants made with the same key and the end of the registration's expiry, in one
-- statement, and nothing unless the key typed at consent ($13) is live and not itself a grant.
-- $1 key id, $2 name, $3 user, $4 key region, $5 now, $6 client, $7/$8 access hash/expiry,
-- $9/$10 refresh hash/expiry, $11 code region, $12 code hash, $13 the key typed at consent.
CREATE OR REPLACE FUNCTION naaba_create_grant(
    uuid, text, uuid, text, timestamptz, text, text, timestamptz, text, timestamptz, text, text, uuid)
  RETURNS TABLE (created int, replaced int, tokens int, linked int, kept int)
  LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp
AS $$
WITH granting AS (
  SELECT key_id FROM api_keys WHERE key_id = $13 AND revoked_at IS NULL AND client_id IS NULL
), earlier AS (
  UPDATE api_keys SET revoked_at = $5
   WHERE granted_by = $13 AND client_id = $6 AND revoked_at IS NULL AND EXISTS (SELECT 1 FROM granting)
  RETURNING key_id
), grant_key AS (
  INSERT INTO api_keys (key_id, token_sha256, name, user_id, region, created_at, revoked_at, client_id, granted_by)
  SELECT $1, NULL, $2, $3, $4, $5, NULL, $6, key_id FROM granting
  RETURNING key_id
), tokens AS (
  INSERT INTO oauth_tokens (token_sha256, key_id, kind, expires_at)
  SELECT v.token_sha256, g.key_id, v.kind, v.expires_at
    FROM grant_key AS g, (VALUES ($7, 'access', $8), ($9, 'refresh', $10)) AS v (token_sha256, kind, expires_at)
  RETURNING key_id
), linked AS (
  UPDATE oauth_codes SET key_id = $1
   WHERE region = $11 AND code_sha256 = $12 AND EXISTS (SELECT 1 FROM granting)
  RETURNING key_id
), kept AS (
  UPDATE oauth_clients SET expires_at = NULL
   WHERE client_id = $6 AND expires_at IS NOT NULL AND EXISTS (SELECT 1 FROM granting)
  RETURNING client_id
)
SELECT (SELECT count(*) FROM grant_key)::int, (SELECT count(*) FROM earlier)::int,
       (SELECT count(*) FROM tokens)::int, (SELECT count(*) FROM linked)::int, (SELECT count(*) FROM kept)::int
$$;
REVOKE ALL ON FUNCTION naaba_create_grant(
    uuid, text, uuid, text, timestamptz, text, text, timestamptz, text, timestamptz, text, text, uuid) FROM PUBLIC;

-- naaba_revoke_key: a key and the live grants made with it, or one grant, in one statement; the
-- ids revoked. $1 the key, $2 when.
CREATE OR REPLACE FUNCTION naaba_revoke_key(uuid, timestamptz)
  RETURNS TABLE (revoked_key text)
  LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp
AS $$
UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2)
 WHERE key_id = $1 OR (granted_by = $1 AND revoked_at IS NULL)
RETURNING key_id::text
$$;
REVOKE ALL ON FUNCTION naaba_revoke_key(uuid, timestamptz) FROM PUBLIC;
