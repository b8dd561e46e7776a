-- naaba 0021 (CockroachDB): every write that makes or extends a credential, as routines owned by the
-- database owner (docs/decisions/0130, refining 0093). The PostgreSQL twin, whose comments say what
-- each routine does, is ../postgres/0024_credential_writes.sql. The MCP function keeps no direct write on
-- oauth_codes or oauth_tokens (runtime-grants.sql revokes them): a code is saved only for the key
-- typed at consent, proved by the key itself (hashed here, so a login that reads key hashes cannot
-- forge it); a grant takes its user, region, client and name from the code and the granting key's
-- own rows, never from arguments; every token's expiry is bounded. Not run on a cluster here (no
-- binary): tables are named with their schema (a routine has no search_path of its own), a code's
-- region is crdb_internal_region, and CockroachDB's sha256(STRING) answers the hex digest itself.
--
-- An expansion: the routines are new; naaba_create_grant keeps its arguments for older code but
-- now ignores the user and region it is given (and the MCP role no longer may call it).

-- naaba_save_code: the code of a consent, for the live key (not a grant) of this region whose
-- token is p_key, once per consent form. Saved: 1, or 0 when the key is not such a key or the form
-- already made a code.
CREATE OR REPLACE FUNCTION naaba_save_code(
    p_key STRING, p_region crdb_internal_region, p_code_sha256 STRING, p_client_id STRING, p_agent STRING, p_redirect_uri STRING,
    p_code_challenge STRING, p_resource STRING, p_expires_at TIMESTAMPTZ, p_form_sha256 STRING)
  RETURNS TABLE (saved INT)
  LANGUAGE SQL VOLATILE SECURITY DEFINER
AS $$
WITH granting AS (
  SELECT key_id, user_id FROM public.api_keys
   WHERE token_sha256 = sha256(p_key)
     AND revoked_at IS NULL AND client_id IS NULL AND region = p_region::STRING
), saved AS (
  INSERT INTO public.oauth_codes (region, code_sha256, client_id, user_id, agent, redirect_uri, code_challenge, resource, expires_at, granted_by, form_sha256)
  SELECT p_region, p_code_sha256, p_client_id, g.user_id, p_agent, p_redirect_uri, p_code_challenge, p_resource,
         p_expires_at, g.key_id, p_form_sha256
    FROM granting AS g
  ON CONFLICT (region, form_sha256) DO NOTHING
  RETURNING 1
)
SELECT (SELECT count(*) FROM saved)::INT
$$;
REVOKE ALL ON FUNCTION naaba_save_code(STRING, crdb_internal_region, STRING, STRING, STRING, STRING, STRING, STRING, TIMESTAMPTZ, STRING) FROM public;

-- naaba_consume_code: a code marked used and returned, to the first caller only.
CREATE OR REPLACE FUNCTION naaba_consume_code(p_region crdb_internal_region, p_code_sha256 STRING, p_now TIMESTAMPTZ)
  RETURNS TABLE (region crdb_internal_region, code_sha256 STRING, client_id STRING, user_id STRING, agent STRING, redirect_uri STRING,
                 code_challenge STRING, resource STRING, expires_at TIMESTAMPTZ, granted_by STRING)
  LANGUAGE SQL VOLATILE SECURITY DEFINER
AS $$
UPDATE public.oauth_codes AS c SET used_at = p_now
 WHERE c.region = p_region AND c.code_sha256 = p_code_sha256 AND c.used_at IS NULL
RETURNING c.region, c.code_sha256, c.client_id, c.user_id::STRING, c.agent, c.redirect_uri, c.code_challenge,
          c.resource, c.expires_at, c.granted_by::STRING
$$;
REVOKE ALL ON FUNCTION naaba_consume_code(crdb_internal_region, STRING, TIMESTAMPTZ) FROM public;

-- naaba_grant_code: the grant a code not yet exchanged makes, with its first two tokens, in one
-- statement. User and region are the granting key's; client, name and granting key the code's. Only
-- while that key is live and not itself a grant; the client's earlier grants made with the same key
-- end; the access token lives at most an hour, the refresh token 30 days (the authorizer holds the
-- same bound with its own clock).
CREATE OR REPLACE FUNCTION naaba_grant_code(
    p_key_id UUID, p_now TIMESTAMPTZ, p_access_sha256 STRING, p_access_expires_at TIMESTAMPTZ,
    p_refresh_sha256 STRING, p_refresh_expires_at TIMESTAMPTZ, p_code_region crdb_internal_region, p_code_sha256 STRING)
  RETURNS TABLE (created INT, replaced INT, tokens INT, linked INT, kept INT)
  LANGUAGE SQL VOLATILE SECURITY DEFINER
AS $$
WITH code AS (
  SELECT c.client_id, c.agent, c.granted_by FROM public.oauth_codes AS c
   WHERE c.region = p_code_region AND c.code_sha256 = p_code_sha256 AND c.key_id IS NULL
), granting AS (
  SELECT k.key_id, k.user_id, k.region, code.client_id, code.agent
    FROM public.api_keys AS k JOIN code ON k.key_id = code.granted_by
   WHERE k.revoked_at IS NULL AND k.client_id IS NULL
), earlier AS (
  UPDATE public.api_keys AS k SET revoked_at = p_now
    FROM granting AS g
   WHERE k.granted_by = g.key_id AND k.client_id = g.client_id AND k.revoked_at IS NULL
  RETURNING k.key_id
), grant_key AS (
  INSERT INTO public.api_keys (key_id, token_sha256, name, user_id, region, created_at, revoked_at, client_id, granted_by)
  SELECT p_key_id, NULL, g.agent, g.user_id, g.region, p_now, NULL, g.client_id, g.key_id FROM granting AS g
  RETURNING key_id
), tokens AS (
  INSERT INTO public.oauth_tokens (token_sha256, key_id, kind, expires_at)
  SELECT v.token_sha256, g.key_id, v.kind, v.expires_at
    FROM grant_key AS g,
         (VALUES (p_access_sha256, 'access', LEAST(p_access_expires_at, p_now + interval '1 hour')),
                 (p_refresh_sha256, 'refresh', LEAST(p_refresh_expires_at, p_now + interval '30 days')))
           AS v (token_sha256, kind, expires_at)
  RETURNING key_id
), linked AS (
  UPDATE public.oauth_codes AS c SET key_id = p_key_id
   WHERE c.region = p_code_region AND c.code_sha256 = p_code_sha256 AND EXISTS (SELECT 1 FROM granting)
  RETURNING c.key_id
), kept AS (
  UPDATE public.oauth_clients AS o SET expires_at = NULL
    FROM granting AS g
   WHERE o.client_id = g.client_id AND o.expires_at IS NOT NULL
  RETURNING o.client_id
)
SELECT (SELECT count(*) FROM grant_key)::INT, (SELECT count(*) FROM earlier)::INT,
       (SELECT count(*) FROM tokens)::INT, (SELECT count(*) FROM linked)::INT, (SELECT count(*) FROM kept)::INT
$$;
REVOKE ALL ON FUNCTION naaba_grant_code(UUID, TIMESTAMPTZ, STRING, TIMESTAMPTZ, STRING, TIMESTAMPTZ, crdb_internal_region, STRING) FROM public;

-- naaba_rotate_refresh: a refresh token of a live grant of the client replaced by a new pair
-- (the statement of oauth/rotate, decision 0067), the new tokens' expiry bounded as above.
CREATE OR REPLACE FUNCTION naaba_rotate_refresh(
    p_refresh_sha256 STRING, p_now TIMESTAMPTZ, p_client_id STRING, p_access_sha256 STRING, p_access_expires_at TIMESTAMPTZ,
    p_next_refresh_sha256 STRING, p_next_refresh_expires_at TIMESTAMPTZ, p_grace_since TIMESTAMPTZ)
  RETURNS TABLE (issued INT, replaced INT, ended INT)
  LANGUAGE SQL VOLATILE SECURITY DEFINER
AS $$
WITH presented AS (
  SELECT t.token_sha256, t.key_id, t.parent_sha256, t.replaced_at
    FROM public.oauth_tokens AS t
   WHERE t.token_sha256 = p_refresh_sha256 AND t.kind = 'refresh' AND t.expires_at > p_now
     AND (t.replaced_at IS NULL OR t.replaced_at > p_grace_since)
     AND t.key_id IN (SELECT key_id FROM public.api_keys WHERE client_id = p_client_id AND revoked_at IS NULL)
), old AS (
  UPDATE public.oauth_tokens SET replaced_at = p_now
   WHERE token_sha256 IN (SELECT token_sha256 FROM presented WHERE replaced_at IS NULL)
  RETURNING token_sha256
), siblings AS (
  UPDATE public.oauth_tokens SET expires_at = p_now
   WHERE kind = 'refresh' AND expires_at > p_now AND token_sha256 <> p_refresh_sha256
     AND (token_sha256 IN (SELECT parent_sha256 FROM presented)
          OR (replaced_at IS NULL AND parent_sha256 IN (SELECT parent_sha256 FROM presented)))
  RETURNING token_sha256
), fresh AS (
  INSERT INTO public.oauth_tokens (token_sha256, key_id, kind, expires_at, parent_sha256)
  SELECT v.token_sha256, p.key_id, v.kind, v.expires_at, p.token_sha256
    FROM presented AS p,
         (VALUES (p_access_sha256, 'access', LEAST(p_access_expires_at, p_now + interval '1 hour')),
                 (p_next_refresh_sha256, 'refresh', LEAST(p_next_refresh_expires_at, p_now + interval '30 days')))
           AS v (token_sha256, kind, expires_at)
  RETURNING key_id
)
SELECT (SELECT count(*) FROM fresh)::INT, (SELECT count(*) FROM old)::INT, (SELECT count(*) FROM siblings)::INT
$$;
REVOKE ALL ON FUNCTION naaba_rotate_refresh(STRING, TIMESTAMPTZ, STRING, STRING, TIMESTAMPTZ, STRING, TIMESTAMPTZ, TIMESTAMPTZ) FROM public;

-- The grant routine of 0012, for older code only: the code's own grant, user and region from the
-- granting key's row, whatever the arguments say ($2, $3, $4, $6 and $13 are ignored).
CREATE OR REPLACE FUNCTION naaba_create_grant(
    UUID, STRING, UUID, STRING, TIMESTAMPTZ, STRING, STRING, TIMESTAMPTZ, STRING, TIMESTAMPTZ,
    crdb_internal_region, STRING, UUID)
  RETURNS TABLE (created INT, replaced INT, tokens INT, linked INT, kept INT)
  LANGUAGE SQL VOLATILE SECURITY DEFINER
AS $$
SELECT g.created, g.replaced, g.tokens, g.linked, g.kept FROM naaba_grant_code($1, $5, $7, $8, $9, $10, $11, $12) AS g
$$;
REVOKE ALL ON FUNCTION naaba_create_grant(
    UUID, STRING, UUID, STRING, TIMESTAMPTZ, STRING, STRING, TIMESTAMPTZ, STRING, TIMESTAMPTZ,
    crdb_internal_region, STRING, UUID) FROM public;
