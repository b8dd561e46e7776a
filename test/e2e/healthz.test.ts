import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
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
