import { sql, param } from '../../lambda/adapters/pg/sql/template.js';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { OAUTH_LIMITS } from '../../lambda/auth/oauth.js';
import { ManualClock } from '../support/clock.js';
import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { ManualOAuthFlow, openConsent, pkce, submitConsent } from '../support/oauth.js';

/**
 * Each way of bending the flow is refused, and nothing is issued: no code reaches the client, no
 * grant or token row appears. Real HTTP against the local server, the flow driven by hand.
 */

const REDIRECT = 'http://127.0.0.1:8977/cb';
const clock = new ManualClock(Date.parse('2026-06-01T08:00:00Z'));
let endpoint: TestEndpoint;
let flow: ManualOAuthFlow;
let key: IssuedKey;
let clientId: string;

beforeAll(async () => {
  endpoint = await startTestEndpoint({ clock, env: { NAABA_REGION: 'eu-central-1' } });
  flow = new ManualOAuthFlow(endpoint.url);
  key = await endpoint.issueKey('owner');
  clientId = await flow.client(REDIRECT);
});
afterAll(() => endpoint.close());

/** Rows that would mean something was issued. */
async function issued(): Promise<{ grants: number; tokens: number }> {
  const [grants] = await endpoint.sql.query<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM api_keys WHERE client_id IS NOT NULL`,
  );
  const [tokens] = await endpoint.sql.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM oauth_tokens`);
  return { grants: grants?.n ?? 0, tokens: tokens?.n ?? 0 };
}

/** Consent with the owner's key: the code and the PKCE verifier that goes with it. */
async function code(params: Record<string, string> = {}): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  const url = flow.authorizeUrl({
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    state: 's1',
    ...params,
  });
  const answer = await submitConsent(url, await openConsent(url), { key: key.token, decision: 'allow' });
  const location = new URL(answer.headers.get('location') ?? '');
  return { code: location.searchParams.get('code') ?? '', verifier };
}

const exchange = (c: { code: string; verifier: string | undefined }, extra: Record<string, string | undefined> = {}) =>
  flow.token({
    grant_type: 'authorization_code',
    client_id: clientId,
    code: c.code,
    redirect_uri: REDIRECT,
    code_verifier: c.verifier,
    ...extra,
  });

async function toolsList(token: string): Promise<number> {
  const response = await fetch(endpoint.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  await response.body?.cancel();
  return response.status;
}

describe('the token endpoint refuses, and issues nothing', () => {
  test.each([
    ['a wrong PKCE verifier', { code_verifier: 'x'.repeat(43) }],
    ['no PKCE verifier', { code_verifier: undefined }],
    ['a redirect URI differing by one character', { redirect_uri: `${REDIRECT}x` }],
    ['another resource', { resource: 'https://elsewhere.example/mcp' }],
  ])('%s', async (_, extra) => {
    const before = await issued();
    const answer = await exchange(await code(), extra);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/invalid_grant|invalid_target/);
    expect(answer.body).not.toHaveProperty('access_token');
    expect(await issued()).toEqual(before);
  });

  test('an unregistered client', async () => {
    const before = await issued();
    const answer = await exchange(await code(), { client_id: 'not-registered' });
    expect(answer).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(await issued()).toEqual(before);
  });

  test('an expired code (older than a minute)', async () => {
    const before = await issued();
    const c = await code();
    clock.advance(61);
    const answer = await exchange(c);
    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(String(answer.body.error_description)).toContain('expired');
    expect(await issued()).toEqual(before);
  });

  test('a reused code: refused, and the grant the first use made is revoked', async () => {
    const c = await code();
    const first = await exchange(c);
    expect(first.status).toBe(200);
    const access = String(first.body.access_token);
    expect(await toolsList(access)).toBe(200);
    const before = await issued();
    const second = await exchange(c);
    expect(second).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await issued()).toEqual(before);
    expect(await toolsList(access)).toBe(401);
  });

  const refresh = (token: unknown) =>
    flow.token({ grant_type: 'refresh_token', client_id: clientId, refresh_token: String(token) });

  test('a rotated refresh token presented after its replacement was used: refused, and the whole family is revoked', async () => {
    const first = await exchange(await code());
    const rotated = await refresh(first.body.refresh_token);
    expect(rotated.status).toBe(200);
    const used = await refresh(rotated.body.refresh_token);
    expect(used.status).toBe(200);
    expect(await toolsList(String(used.body.access_token))).toBe(200);
    const before = await issued();
    const replay = await refresh(first.body.refresh_token);
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await issued()).toEqual(before);
    // Every token of the grant is dead: the newest access token and the newest refresh token.
    expect(await toolsList(String(used.body.access_token))).toBe(401);
    expect(await refresh(used.body.refresh_token)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test('a rotated refresh token presented after its grace: refused, and the grant is revoked', async () => {
    const first = await exchange(await code());
    const rotated = await refresh(first.body.refresh_token);
    clock.advance(OAUTH_LIMITS.refreshGraceSeconds + 1);
    expect(await refresh(first.body.refresh_token)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await toolsList(String(rotated.body.access_token))).toBe(401);
  });

  test('one code exchanged five times at once: exactly one answer has tokens', async () => {
    const c = await code();
    const answers = await Promise.all(Array.from({ length: 5 }, () => exchange(c)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400, 400]);
  });

  test('one refresh token presented five times at once: each gets a working pair, and the grant lives on', async () => {
    const first = await exchange(await code());
    const answers = await Promise.all(Array.from({ length: 5 }, () => refresh(first.body.refresh_token)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    for (const answer of answers) expect(await toolsList(String(answer.body.access_token))).toBe(200);
    // The client keeps one answer and goes on with it; the others' refresh tokens end then.
    const kept = answers[2]?.body;
    expect((await refresh(kept?.refresh_token)).status).toBe(200);
    expect(await refresh(answers[0]?.body.refresh_token)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test("an access token of another region's grant gets the same 403 as that region's key", async () => {
    const tokens = await exchange(await code());
    await endpoint.sql.query(sql`UPDATE api_keys SET region = 'us-east-1'
        WHERE key_id = (SELECT key_id FROM oauth_tokens WHERE token_sha256 = encode(sha256(convert_to(${param('value', String(tokens.body.access_token))}, 'UTF8')), 'hex'))`);
    const response = await fetch(endpoint.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.body.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { message: string }).message).toContain('us-east-1');
  });

  test('a refresh token presented by another client', async () => {
    const first = await exchange(await code());
    const other = await flow.client(REDIRECT, 'Other Client');
    const before = await issued();
    const answer = await flow.token({
      grant_type: 'refresh_token',
      client_id: other,
      refresh_token: String(first.body.refresh_token),
    });
    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await issued()).toEqual(before);
  });
});

describe('the authorization endpoint refuses, and no code reaches the client', () => {
  const { challenge } = pkce();

  test('the plain PKCE method: sent back to the client as invalid_request, no consent page', async () => {
    const url = flow.authorizeUrl({
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'plain',
      state: 'p',
    });
    const answer = await fetch(url, { redirect: 'manual' });
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('state')).toBe('p');
    expect(location.searchParams.has('code')).toBe(false);
  });

  test('no code challenge at all', async () => {
    const url = flow.authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT });
    const location = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('invalid_request');
  });

  test.each([
    ['a redirect URI differing by one character', { client_id: 'REAL', redirect_uri: `${REDIRECT}/` }],
    ['an open redirect to another site', { client_id: 'REAL', redirect_uri: 'https://evil.example/steal' }],
    ['an unregistered client', { client_id: 'nobody', redirect_uri: REDIRECT }],
  ])('%s: a page saying so, never a redirect', async (_, params) => {
    const url = flow.authorizeUrl({
      ...params,
      client_id: params.client_id === 'REAL' ? clientId : params.client_id,
      code_challenge: challenge,
    });
    const answer = await fetch(url, { redirect: 'manual' });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    expect(await answer.text()).toContain('Sign-in refused');
  });

  test('the consent form posted to another redirect URI than the page showed: no redirect there', async () => {
    const url = flow.authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge });
    const answer = await submitConsent(url, await openConsent(url), {
      key: key.token,
      decision: 'allow',
      redirect_uri: 'https://evil.example/',
    });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
  });

  test.each([
    ['without the CSRF field', { csrf: undefined }, {}],
    ['without the CSRF cookie', {}, { cookie: undefined }],
    ['with a CSRF field that is not the cookie', { csrf: 'forged-value-forged-value-forged' }, {}],
    ['from another origin', {}, { origin: 'https://evil.example' }],
  ])('a consent POST %s: 403, no code', async (_, overrides, options) => {
    const url = flow.authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge });
    const form = await openConsent(url);
    const answer = await submitConsent(url, form, { key: key.token, decision: 'allow', ...overrides }, options);
    expect(answer.status).toBe(403);
    expect(answer.headers.get('location')).toBeNull();
  });

  test.each([
    ['a key of another region', async () => (await endpoint.issueKey('elsewhere', 'us-east-1')).token, 403, 'us-east-1'],
    ['an unknown key', async () => `nb_${'A'.repeat(43)}`, 401, 'unknown or revoked'],
    ['an OAuth access token instead of a key', async () => `nba_${'A'.repeat(43)}`, 401, 'starts with nb_'],
  ])('consent with %s: the page again with the reason, no code', async (_, keyOf, status, reason) => {
    const url = flow.authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge });
    const answer = await submitConsent(url, await openConsent(url), { key: await keyOf(), decision: 'allow' });
    expect(answer.status).toBe(status);
    expect(answer.headers.get('location')).toBeNull();
    expect(await answer.text()).toContain(reason);
  });

  test('deny: the client hears access_denied with its state, and no code', async () => {
    const url = flow.authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, state: 'd' });
    const answer = await submitConsent(url, await openConsent(url), { key: key.token, decision: 'deny' });
    const location = new URL(answer.headers.get('location') ?? '');
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('d');
    expect(location.searchParams.has('code')).toBe(false);
  });
});

describe('revocation (RFC 7009)', () => {
  test('the client revokes its refresh token: the whole grant ends, access token included', async () => {
    const tokens = await exchange(await code());
    expect(await flow.revoke({ client_id: clientId, token: String(tokens.body.refresh_token) })).toBe(200);
    expect(await toolsList(String(tokens.body.access_token))).toBe(401);
    const refreshed = await flow.token({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: String(tokens.body.refresh_token),
    });
    expect(refreshed.status).toBe(400);
  });

  test('another client cannot revoke a grant it does not hold; an unknown token is still a 200', async () => {
    const tokens = await exchange(await code());
    const other = await flow.client(REDIRECT, 'Other Client');
    expect(await flow.revoke({ client_id: other, token: String(tokens.body.access_token) })).toBe(200);
    expect(await flow.revoke({ client_id: clientId, token: `nba_${'Z'.repeat(43)}` })).toBe(200);
    expect(await toolsList(String(tokens.body.access_token))).toBe(200);
    expect(await flow.revoke({ client_id: 'nobody', token: String(tokens.body.access_token) })).toBe(401);
  });
});

describe('registration', () => {
  test.each([
    ['http on another host', { redirect_uris: ['http://evil.example/cb'] }, 'invalid_redirect_uri'],
    ['a javascript: URI', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://app.example/cb#x'] }, 'invalid_redirect_uri'],
    ['no redirect URIs', { client_name: 'x' }, 'invalid_redirect_uri'],
    ['the implicit grant', { redirect_uris: [REDIRECT], grant_types: ['implicit'] }, 'invalid_client_metadata'],
    ['a name that is not text', { redirect_uris: [REDIRECT], client_name: 7 }, 'invalid_client_metadata'],
  ])('refuses %s', async (_, metadata, error) => {
    const answer = await flow.register(metadata);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error });
  });

  test('accepts https and loopback on any port; the name is stored as printable, bounded text', async () => {
    const hostile = `Evil\u202e\u0000Client\n${'x'.repeat(300)}`;
    const answer = await flow.register({
      client_name: hostile,
      redirect_uris: ['https://app.example/cb', 'http://[::1]:61234/cb', 'http://localhost:1/x'],
    });
    expect(answer.status).toBe(201);
    const body = (await answer.json()) as { client_name: string; token_endpoint_auth_method: string };
    expect(body.client_name).toMatch(/^Evil Client x+$/);
    expect([...body.client_name].length).toBeLessThanOrEqual(100);
    expect(body.token_endpoint_auth_method).toBe('none');
  });
});
