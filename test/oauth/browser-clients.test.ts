import { sql, param } from '../../lambda/adapters/pg/sql/template.js';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { UNUSED_CLIENT_SECONDS } from '../../lambda/auth/oauth-clients.js';
import { ManualClock } from '../support/clock.js';
import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { ManualOAuthFlow, openConsent, pkce, submitConsent } from '../support/oauth.js';

/**
 * What browser-based and native clients meet (issue 21, item 7): CORS and preflights on
 * discovery, registration, token and revocation (never on the consent page or /mcp), loopback
 * redirect URIs on any port (RFC 8252 §7.3), a consent form that works once, and registrations no
 * grant used lapsing after a day.
 */

const clock = new ManualClock(Date.parse('2026-06-01T08:00:00Z'));
let endpoint: TestEndpoint;
let flow: ManualOAuthFlow;
let key: IssuedKey;

beforeAll(async () => {
  endpoint = await startTestEndpoint({ clock });
  flow = new ManualOAuthFlow(endpoint.url);
  key = await endpoint.issueKey('owner');
});
afterAll(() => endpoint.close());

const APP = 'https://chat.example';

describe('CORS', () => {
  test.each([
    ['/.well-known/oauth-protected-resource/mcp', 'GET'],
    ['/.well-known/oauth-authorization-server', 'GET'],
    ['/oauth/register', 'POST'],
    ['/oauth/token', 'POST'],
    ['/oauth/revoke', 'POST'],
  ])('%s: the preflight allows %s from any origin, without credentials', async (path, method) => {
    const response = await fetch(`${endpoint.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin: APP,
        'access-control-request-method': method,
        'access-control-request-headers': 'content-type, mcp-protocol-version',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-methods')).toContain(method);
    expect(response.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  test('the answers themselves, errors included, are readable across origins', async () => {
    const metadata = await fetch(`${endpoint.url}/.well-known/oauth-authorization-server`, { headers: { origin: APP } });
    const registered = await flow.register({ client_name: 'Web App', redirect_uris: [`${APP}/cb`] });
    const refused = await flow.token({ grant_type: 'refresh_token', client_id: 'nobody', refresh_token: 'x' });
    expect([metadata.status, registered.status, refused.status]).toEqual([200, 201, 401]);
    for (const r of [metadata, registered]) expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const raw = await fetch(`${endpoint.url}/oauth/token`, {
      method: 'POST',
      headers: { origin: APP },
      body: 'client_id=nobody',
    });
    expect(raw.headers.get('access-control-allow-origin')).toBe('*');
    expect(raw.headers.get('access-control-expose-headers')).toContain('retry-after');
  });

  test.each([
    ['the consent page', '/oauth/authorize', 405],
    ['/mcp', '/mcp', 405],
  ])('%s has no CORS: OPTIONS is not answered as a preflight', async (_, path, status) => {
    const response = await fetch(`${endpoint.url}${path}`, { method: 'OPTIONS', headers: { origin: APP } });
    expect(response.status).toBe(status);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

/** Consent with the owner's key for a request to `redirectUri`: the answer the browser gets. */
async function consent(clientId: string, redirectUri: string): Promise<Response> {
  const url = flow.authorizeUrl({ client_id: clientId, redirect_uri: redirectUri, code_challenge: pkce().challenge });
  return submitConsent(url, await openConsent(url), { key: key.token, decision: 'allow' });
}

describe('loopback redirect URIs on any port', () => {
  test.each([
    ['127.0.0.1', 'http://127.0.0.1:8976/callback', 'http://127.0.0.1:53111/callback'],
    ['[::1]', 'http://[::1]:8976/callback', 'http://[::1]:40000/callback'],
    ['localhost', 'http://localhost/callback', 'http://localhost:61000/callback'],
  ])('%s: registered on one port, asked for on another: a code, sent to the port asked for', async (_, registered, asked) => {
    const clientId = await flow.client(registered);
    const answer = await consent(clientId, asked);
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(asked);
    expect(location.searchParams.get('code')).toMatch(/^nbc_/);
  });

  test.each([
    ['another path', 'http://127.0.0.1:53111/other'],
    ['another loopback host', 'http://localhost:53111/callback'],
    ['https instead of http', 'https://127.0.0.1:53111/callback'],
    ['user info', 'http://evil@127.0.0.1:53111/callback'],
  ])('%s is still refused on the page, never redirected to', async (_, asked) => {
    const clientId = await flow.client('http://127.0.0.1:8976/callback');
    const page = await openConsent(
      flow.authorizeUrl({ client_id: clientId, redirect_uri: asked, code_challenge: pkce().challenge }),
    );
    expect(page.status).toBe(400);
    expect(page.html).toContain('did not register');
  });

  test('an https redirect URI must match exactly, port included', async () => {
    const clientId = await flow.client('https://app.example:8443/cb');
    const asked = 'https://app.example:9443/cb';
    const page = await openConsent(
      flow.authorizeUrl({ client_id: clientId, redirect_uri: asked, code_challenge: pkce().challenge }),
    );
    expect(page.status).toBe(400);
  });
});

describe('one consent form, one code', () => {
  const REDIRECT = 'http://127.0.0.1:8977/cb';

  test('submitted twice: the second answer is a page saying so, no second code', async () => {
    const clientId = await flow.client(REDIRECT);
    const url = flow.authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge });
    const form = await openConsent(url);
    const first = await submitConsent(url, form, { key: key.token, decision: 'allow' });
    const second = await submitConsent(url, form, { key: key.token, decision: 'allow' });
    expect(first.status).toBe(303);
    expect(second.status).toBe(409);
    expect(second.headers.get('location')).toBeNull();
    expect(await second.text()).toContain('already answered');
  });

  test('submitted five times at once: exactly one code', async () => {
    const clientId = await flow.client(REDIRECT);
    const url = flow.authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge });
    const form = await openConsent(url);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => submitConsent(url, form, { key: key.token, decision: 'allow' })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([303, 409, 409, 409, 409]);
    const [codes] = await endpoint.sql.query<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM oauth_codes WHERE client_id = ${param('clientId', clientId)}`,
    );
    expect(codes?.n).toBe(1);
  });

  test('a wrong key does not use the form up: the page comes back, and the right key then works', async () => {
    const clientId = await flow.client(REDIRECT);
    const url = flow.authorizeUrl({ client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge });
    const wrong = await submitConsent(url, await openConsent(url), { key: `nb_${'W'.repeat(43)}`, decision: 'allow' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toMatch(/naaba_oauth_csrf=/);
    expect((await consent(clientId, REDIRECT)).status).toBe(303);
  });
});

test('a registration no grant used lapses after a day; one a grant used does not', async () => {
  const unused = await flow.client('http://127.0.0.1:8978/cb', 'Abandoned');
  const used = await flow.client('http://127.0.0.1:8979/cb', 'Kept');
  const { verifier, challenge } = pkce();
  const url = flow.authorizeUrl({ client_id: used, redirect_uri: 'http://127.0.0.1:8979/cb', code_challenge: challenge });
  const answer = await submitConsent(url, await openConsent(url), { key: key.token, decision: 'allow' });
  const code = new URL(answer.headers.get('location') ?? '').searchParams.get('code') ?? '';
  const exchanged = await flow.token({
    grant_type: 'authorization_code',
    client_id: used,
    code,
    redirect_uri: 'http://127.0.0.1:8979/cb',
    code_verifier: verifier,
  });
  expect(exchanged.status).toBe(200);

  clock.advance(UNUSED_CLIENT_SECONDS + 1);

  const lapsed = await openConsent(
    flow.authorizeUrl({ client_id: unused, redirect_uri: 'http://127.0.0.1:8978/cb', code_challenge: challenge }),
  );
  expect(lapsed.status).toBe(400);
  expect(lapsed.html).toContain('lapsed');
  const kept = await openConsent(
    flow.authorizeUrl({ client_id: used, redirect_uri: 'http://127.0.0.1:8979/cb', code_challenge: challenge }),
  );
  expect(kept.status).toBe(200);
  expect(
    (await flow.token({ grant_type: 'refresh_token', client_id: used, refresh_token: String(exchanged.body.refresh_token) }))
      .status,
  ).toBe(200);
});
