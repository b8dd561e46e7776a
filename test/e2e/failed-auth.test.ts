import { request } from 'node:http';
import { CountingSqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { FAILED_AUTH_LIMITS } from '../../lambda/dev/failed-auth.js';
import { newToken } from '../../lambda/auth/token.js';
import { ManualClock } from '../support/clock.js';
import { freshDatabase } from '../support/database.js';
import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

/**
 * Failed authentications on the local server are bounded per client address, not per token
 * (issue 21, item 1): random tokens from one address cost a database read each only until that
 * address has spent its budget; then they are 429 with Retry-After and cost none. A key that
 * worked from the same address keeps working, and another address is not affected.
 */

let endpoint: TestEndpoint;
let counted: CountingSqlClient;
let db: Awaited<ReturnType<typeof freshDatabase>>;

beforeAll(async () => {
  db = await freshDatabase();
  counted = new CountingSqlClient(db);
  // A clock that stands still: the budget refills 1 a second, and the flood must not outlast it.
  endpoint = await startTestEndpoint({ sql: counted, clock: new ManualClock() });
});
afterAll(async () => {
  await endpoint.close();
  await db.close();
});

/** POST /mcp with `token` from a chosen loopback address. */
function call(token: string, from: string): Promise<{ status: number; retryAfter: string | undefined }> {
  const url = new URL(endpoint.mcpUrl);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: from,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
      },
      (res) => {
        res.resume();
        const retry = res.headers['retry-after'];
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(retry) ? retry[0] : retry }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('a flood of random tokens from one address: reads stop at its budget; its good key and another address go on', async () => {
  const good = await endpoint.issueKey('good');
  expect((await call(good.token, '127.0.0.9')).status).toBe(200);
  const before = counted.roundTrips;

  const answers = await Promise.all(Array.from({ length: 100 }, () => call(newToken(), '127.0.0.9')));
  const reads = counted.roundTrips - before;

  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(FAILED_AUTH_LIMITS.burst);
  expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
  expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
  // One key lookup per 401; a 429 reads nothing. Calls already past the check when the budget ran out may add a few.
  expect(reads).toBe(statuses.filter((s) => s === 401).length);
  expect(reads).toBeLessThan(FAILED_AUTH_LIMITS.burst + 10);
  expect(Number(answers.find((a) => a.status === 429)?.retryAfter)).toBeGreaterThanOrEqual(1);

  expect((await call(good.token, '127.0.0.9')).status).toBe(200);
  expect((await call(newToken(), '127.0.0.10')).status).toBe(401);
  const other = await endpoint.issueKey('other');
  expect((await call(other.token, '127.0.0.10')).status).toBe(200);
});
