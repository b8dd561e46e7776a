import { OUTAGE_MESSAGE, OutageSqlClient } from '../auth/outage.js';
import { capturedOutput } from '../support/output.js';
import { lambdaContext, mcpCall, proxyEvent } from './events.js';
import { setEnvironment } from './process-env.js';

/**
 * A cold MCP container whose database cannot be reached (issue 21, item 9): the first request
 * that needs it is answered 503 with Retry-After — never a failed invocation, which API Gateway
 * turns into a bare 502 — counted `store_unavailable` and logged at ERROR without the driver's
 * message; once the database is back the same container serves.
 */

const restoreEnvironment = setEnvironment({
  AWS_LAMBDA_FUNCTION_NAME: 'naaba-mcp',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  NAABA_LOG_LEVEL: 'INFO',
});
const { Container, installContainer } = await import('../../lambda/composition.js');
const { loadConfig } = await import('../../lambda/config/env.js');
const { freshDatabase } = await import('../support/database.js');
const { handler } = await import('../../lambda/handlers/endpoint.js');

type Db = Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: OutageSqlClient;

beforeAll(async () => {
  db = await freshDatabase();
  sql = new OutageSqlClient(db);
});
beforeEach(() => {
  // A fresh container each time: cold, nothing built yet.
  sql.state = 'down';
  const config = loadConfig({ NAABA_REGION: 'eu-central-1', NAABA_ALLOWED_HOSTS: '*', NAABA_LOG_LEVEL: 'INFO' });
  installContainer(new Container(config, { sql }));
});
afterAll(async () => {
  installContainer(undefined);
  await db.close();
  restoreEnvironment();
});

const principal = {
  userId: '7e3a6f2c-27a8-4d5c-9a59-2f4d3c1b0a11',
  region: 'eu-central-1',
  agent: 'cold',
  keyId: '3b9d2f4e-1c6a-4e8b-9f2d-6a7c5b4e3d21',
};

test.each([
  ['a tool call', () => mcpCall('tools/list', {}, principal)],
  [
    'an OAuth registration',
    () =>
      proxyEvent({
        method: 'POST',
        path: '/oauth/register',
        body: { client_name: 'x', redirect_uris: ['http://127.0.0.1:9/cb'] },
      }),
  ],
  ['a page data call', () => proxyEvent({ method: 'GET', path: '/api/overview', authorizer: principal })],
])('%s: 503 with Retry-After, counted and logged without the driver message', async (_label, event) => {
  const { value, output } = await capturedOutput(() => handler(event(), lambdaContext('naaba-mcp')));
  const result = value as { statusCode: number; headers: Record<string, string>; body: string };
  expect(result.statusCode).toBe(503);
  expect(result.headers['retry-after']).toBe('5');
  expect(result.body).toMatch(/cannot reach its database/);
  expect(output).toContain('"Name":"store_unavailable"');
  expect(output).toContain('"message":"store unavailable: answered 503"');
  expect(output).toContain('"level":"ERROR"');
  expect(output).not.toContain(OUTAGE_MESSAGE);
});

test('the database back: the same container serves the next request', async () => {
  await capturedOutput(() => handler(mcpCall('tools/list', {}, principal), lambdaContext('naaba-mcp')));
  sql.state = 'up';
  const { value } = await capturedOutput(() => handler(mcpCall('tools/list', {}, principal), lambdaContext('naaba-mcp')));
  expect((value as { statusCode: number }).statusCode).toBe(200);
});
