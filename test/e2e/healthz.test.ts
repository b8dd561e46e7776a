import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { IDLE_CONNECTION_MS } from '../../lambda/dev/server.js';
import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

/** A database that fails every call: whatever touches it errors. */
class UnreachableDatabase implements SqlClient {
  readonly engine = 'postgres' as const;
  calls = 0;
  async query<R>(): Promise<R[]> {
    this.calls += 1;
    throw new Error('database unreachable');
  }
  async exec(): Promise<void> {
    this.calls += 1;
    throw new Error('database unreachable');
  }
  async close(): Promise<void> {}
}

let endpoint: TestEndpoint;
const database = new UnreachableDatabase();

beforeAll(async () => {
  endpoint = await startTestEndpoint({ sql: database });
});
afterAll(async () => endpoint.close());

test('GET /healthz answers 200 without touching the database', async () => {
  const response = await fetch(`${endpoint.url}/healthz`);
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ status: 'ok', region: 'local' });
  expect(database.calls).toBe(0);
});

test('the same endpoint does reach the database for MCP calls (so the check above can fail)', async () => {
  const response = await fetch(endpoint.mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer nb_${'B'.repeat(43)}`, 'content-type': 'application/json' },
    body: '{}',
  });
  // The authorizer cannot read keys: API Gateway's authorizer-failure answer, as the local server renders it.
  expect(response.status).toBe(503);
  expect(database.calls).toBeGreaterThan(0);
});

test('the server keeps an idle connection longer than a client does, so a reused one is never closed under it', async () => {
  const response = await fetch(`${endpoint.url}/healthz`);
  await response.arrayBuffer();
  // Node states its keepAliveTimeout to the client in seconds; fetch keeps an idle connection 4 s.
  expect(response.headers.get('keep-alive')).toBe(`timeout=${IDLE_CONNECTION_MS / 1_000}`);
  expect(IDLE_CONNECTION_MS).toBeGreaterThan(4_000 * 10);
});
