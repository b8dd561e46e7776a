import { param, sql } from '../../lambda/adapters/pg/sql/template.js';
import type { Query } from '../../lambda/adapters/pg/sql-client.js';
import { request } from 'node:http';
import { LOOPBACK_REGISTRATIONS } from '../../lambda/auth/loopback-registrations.js';
import { DEFAULT_OAUTH_RATE_LIMITS } from '../../lambda/auth/oauth-limits.js';
import { ManualClock } from '../support/clock.js';
import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

/**
 * Per client address limits on the OAuth endpoints (decision 0064), over real HTTP from two real
 * loopback addresses (127.0.0.1 and 127.0.0.2): a flood from one never locks out the other, the
 * bound holds when requests race, and Retry-After says when the address is served again.
 */

const clock = new ManualClock(Date.parse('2026-06-01T08:00:00Z'));
let endpoint: TestEndpoint;

beforeAll(async () => {
  endpoint = await startTestEndpoint({ clock });
});
afterAll(() => endpoint.close());

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A POST from a chosen local address: the server sees it as the client's address. */
function post(path: string, body: string, from: string, type = 'application/x-www-form-urlencoded'): Promise<Answer> {
  const url = new URL(endpoint.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, method: 'POST', localAddress: from, headers: { 'content-type': type } },
      (res) => {
        let text = '';
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const register = (from: string, name = 'Racer') =>
  post(
    '/oauth/register',
    JSON.stringify({ client_name: name, redirect_uris: ['http://127.0.0.1:9/cb'] }),
    from,
    'application/json',
  );
const rows = async (query: Query) => (await endpoint.sql.query<{ n: number }>(query))[0]?.n;

test('registrations: 20 an hour per address even when forty race; another address still registers; Retry-After tells the truth', async () => {
  const limit = DEFAULT_OAUTH_RATE_LIMITS.register.requests;
  const answers = await Promise.all(Array.from({ length: 2 * limit }, () => register('127.0.0.1')));
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(limit);
  expect(statuses.filter((s) => s === 429)).toHaveLength(limit);
  expect(await rows(sql`SELECT count(*)::int AS n FROM oauth_clients`)).toBe(limit);
  const refused = answers.find((a) => a.status === 429);
  expect(JSON.parse(refused?.body ?? '{}')).toMatchObject({ error: 'temporarily_unavailable' });
  expect(refused?.headers['access-control-allow-origin']).toBe('*');

  expect((await register('127.0.0.2')).status).toBe(201);

  clock.advance(600);
  const waiting = await register('127.0.0.1');
  expect(waiting.status).toBe(429);
  expect(waiting.headers['retry-after']).toBe(String(3_600 - 600));
  clock.advance(3_600 - 600 - 1);
  expect((await register('127.0.0.1')).headers['retry-after']).toBe('1');
  clock.advance(1);
  expect((await register('127.0.0.1')).status).toBe(201);
});

test('on loopback, where every local process shares the address, one client’s registrations never refuse another’s sign-up', async () => {
  const limit = DEFAULT_OAUTH_RATE_LIMITS.register.requests;
  const flood = await Promise.all(Array.from({ length: limit + 5 }, () => register('127.0.0.5', 'Flood')));
  expect(flood.filter((a) => a.status === 429)).toHaveLength(5);
  expect((await register('127.0.0.5', 'Claude Desktop')).status).toBe(201);
});

test.each([
  ['token', '/oauth/token', 'grant_type=refresh_token&client_id=nobody&refresh_token=x'],
  ['revoke', '/oauth/revoke', 'client_id=nobody&token=x'],
] as const)('%s requests: limited per address, refusals too, then 429 until the window ends', async (route, path, body) => {
  const { requests, windowSeconds } = DEFAULT_OAUTH_RATE_LIMITS[route];
  const answers = await Promise.all(Array.from({ length: requests + 5 }, () => post(path, body, '127.0.0.3')));
  expect(answers.filter((a) => a.status === 401)).toHaveLength(requests);
  const limited = answers.filter((a) => a.status === 429);
  expect(limited).toHaveLength(5);
  expect(Number(limited[0]?.headers['retry-after'])).toBeLessThanOrEqual(windowSeconds);
  expect((await post(path, body, '127.0.0.4')).status).toBe(401);
  clock.advance(windowSeconds);
  expect((await post(path, body, '127.0.0.3')).status).toBe(401);
});

test('the consent page: limited per address on GET and POST alike', async () => {
  const { requests } = DEFAULT_OAUTH_RATE_LIMITS.authorize;
  const url = new URL(`${endpoint.url}/oauth/authorize?client_id=nobody`);
  const get = (from: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, localAddress: from },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
  const statuses: number[] = [];
  for (let i = 0; i < requests; i += 1) statuses.push(await get('127.0.0.5'));
  expect(new Set(statuses)).toEqual(new Set([400]));
  expect(await get('127.0.0.5')).toBe(429);
  expect((await post('/oauth/authorize', 'client_id=nobody', '127.0.0.5')).status).toBe(429);
  expect(await get('127.0.0.6')).toBe(400);
});

test('on loopback, a process that varies its client name is never refused, yet at most the bound of unused registrations stays live, each for an hour', async () => {
  const { live, unusedSeconds } = LOOPBACK_REGISTRATIONS;
  const waiting = async () =>
    rows(sql`SELECT count(*)::int AS n FROM oauth_clients WHERE expires_at > ${param('now', clock.now())}::timestamptz`);
  // Another client signs up in the middle of the flood, from the same address, as every local process does.
  const flood = Array.from({ length: live + 150 }, (_, i) => register('127.0.0.7', `Flood ${i}`));
  const desktop = register('127.0.0.7', 'Claude Desktop');
  const answers = await Promise.all([...flood, desktop]);
  expect(answers.filter((a) => a.status !== 201)).toEqual([]);
  expect(await waiting()).toBe(live);
  // The newest registration is live, whatever came before it.
  const newest = JSON.parse((await register('127.0.0.7', 'Cursor')).body) as { client_id: string };
  const newestLive = await rows(
    sql`SELECT count(*)::int AS n FROM oauth_clients WHERE client_id = ${param('id', newest.client_id)} AND expires_at > ${param('now', clock.now())}::timestamptz`,
  );
  expect(newestLive).toBe(1);
  expect(await waiting()).toBe(live);
  clock.advance(unusedSeconds);
  expect(await waiting()).toBe(0);
});

test('on loopback, requests naming no live client spend only the address’s lane: a registered client’s own token requests go on, within their own bound', async () => {
  const { requests } = DEFAULT_OAUTH_RATE_LIMITS.token;
  const desktop = JSON.parse((await register('127.0.0.8', 'Desktop')).body) as { client_id: string };
  const bad = await Promise.all(
    Array.from({ length: requests + 5 }, () =>
      post('/oauth/token', 'grant_type=refresh_token&client_id=nobody&refresh_token=x', '127.0.0.8'),
    ),
  );
  expect(bad.filter((a) => a.status === 429)).toHaveLength(5);
  const own = `grant_type=refresh_token&client_id=${desktop.client_id}&refresh_token=x`;
  const answers = await Promise.all(Array.from({ length: requests + 5 }, () => post('/oauth/token', own, '127.0.0.8')));
  // Answered on their merits (this refresh token is unknown), until the client's own lane is spent.
  expect(answers.filter((a) => a.status === 429)).toHaveLength(5);
  expect(answers.filter((a) => a.status !== 429).every((a) => JSON.parse(a.body).error === 'invalid_grant')).toBe(true);
});
