-- The only writes of api_keys the functions make, as routines owned by the database owner
-- (docs/decisions/0093). The MCP function reads keys but may not write them: an OAuth grant (a key
-- its client holds) is made, and a key or grant revoked, through these two only, with the owner's
-- rights (SECURITY DEFINER). The PostgreSQL twin is ../postgres/0012_key_writes.sql, whose comments
-- say what each statement does. An expansion. Not run on a cluster here (no binary): tables are
-- named with their schema, since a routine does not carry a search_path of its own.
CREATE OR REPLACE FUNCTION naaba_create_grant(
    UUID, STRING, UUID, STRING, TIMESTAMPTZ, STRING, STRING, TIMESTAMPTZ, STRING, TIMESTAMPTZ,
    crdb_internal_region, STRING, UUID)
  RETURNS TABLE (created INT, replaced INT, tokens INT, linked INT, kept INT)
  LANGUAGE SQL VOLATILE SECURITY DEFINER
AS $$
WITH granting AS (
  SELECT key_id FROM public.api_keys WHERE key_id = $13 AND revoked_at IS NULL AND client_id IS NULL
), earlier AS (
  UPDATE public.api_keys SET revoked_at = $5
   WHERE granted_by = $13 AND client_id = $6 AND revoked_at IS NULL AND EXISTS (SELECT 1 FROM granting)
  RETURNING key_id
), grant_key AS (
  INSERT INTO public.api_keys (key_id, token_sha256, name, user_id, region, created_at, revoked_at, client_id, granted_by)
  SELECT $1, NULL, $2, $3, $4, $5, NULL, $6, key_id FROM granting
  RETURNING key_id
), tokens AS (
  INSERT INTO public.oauth_tokens (token_sha256, key_id, kind, expires_at)
  SELECT v.token_sha256, g.key_id, v.kind, v.expires_at
    FROM grant_key AS g, (VALUES ($7, 'access', $8), ($9, 'refresh', $10)) AS v (token_sha256, kind, expires_at)
  RETURNING key_id
), linked AS (
  UPDATE public.oauth_codes SET key_id = $1
   WHERE region = $11 AND code_sha256 = $12 AND EXISTS (SELECT 1 FROM granting)
  RETURNING key_id
), kept AS (
  UPDATE public.oauth_clients SET expires_at = NULL
   WHERE client_id = $6 AND expires_at IS NOT NULL AND EXISTS (SELECT 1 FROM granting)
  RETURNING client_id
)
SELECT (SELECT count(*) FROM grant_key)::INT, (SELECT count(*) FROM earlier)::INT,
       (SELECT count(*) FROM tokens)::INT, (SELECT count(*) FROM linked)::INT, (SELECT count(*) FROM kept)::INT
$$;
REVOKE ALL ON FUNCTION naaba_create_grant(
    UUID, STRING, UUID, STRING, TIMESTAMPTZ, STRING, STRING, TIMESTAMPTZ, STRING, TIMESTAMPTZ,
    crdb_internal_region, STRING, UUID) FROM public;

CREATE OR REPLACE FUNCTION naaba_revoke_key(UUID, TIMESTAMPTZ)
  RETURNS TABLE (revoked_key STRING)
  LANGUAGE SQL VOLATILE SECURITY DEFINER
AS $$
UPDATE public.api_keys SET revoked_at = COALESCE(revoked_at, $2)
 WHERE key_id = $1 OR (granted_by = $1 AND revoked_at IS NULL)
RETURNING key_id::STRING
$$;
REVOKE ALL ON FUNCTION naaba_revoke_key(UUID, TIMESTAMPTZ) FROM public;
