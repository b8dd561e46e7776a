import { createHash } from 'node:crypto';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import { OUTAGE_MESSAGE, OutageSqlClient } from '../auth/outage.js';
import { setEnvironment } from '../handlers/process-env.js';
import type { TestEndpoint } from '../support/endpoint.js';
import { capturedOutput } from '../support/output.js';

/**
 * The local endpoint over a database that goes down: the authorizer handler fails, and the local
 * stand-in for API Gateway answers what the stack's AUTHORIZER_FAILURE gateway response answers.
 */

// As inside Lambda (metrics on), logging at INFO: set before the handlers' modules load.
const restoreEnvironment = setEnvironment({
  AWS_LAMBDA_FUNCTION_NAME: 'naaba-local',
  AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
  NAABA_LOG_LEVEL: 'INFO',
});
const { startTestEndpoint } = await import('../support/endpoint.js');
const { freshDatabase } = await import('../support/database.js');
const { GATEWAY_RESPONSES } = await import('../../lambda/http/api-gateway.js');

let db: PgliteSqlClient;
let sql: OutageSqlClient;
let endpoint: TestEndpoint;
let key: IssuedKey;

beforeAll(async () => {
  db = await freshDatabase();
  sql = new OutageSqlClient(db);
  endpoint = await startTestEndpoint({ sql, env: { NAABA_REGION: 'eu-central-1' } });
  key = await endpoint.issueKey('through an outage');
});
afterAll(async () => {
  await endpoint.close();
  await db.close();
  restoreEnvironment();
});
afterEach(() => {
  sql.state = 'up';
});

const initialize = (authorization?: string) =>
  fetch(endpoint.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'outage-test', version: '1' } },
    }),
  });

/** The response, its body, and everything the process wrote to stdout and stderr meanwhile. */
async function captured(call: () => Promise<Response>): Promise<{ response: Response; body: string; output: string }> {
  let body = '';
  const { value, output } = await capturedOutput(async () => {
    const response = await call();
    body = await response.text();
    return response;
  });
  if (!(value instanceof Response)) throw value;
  return { response: value, body, output };
}

test('database down: 503 with Retry-After and the exact gateway body, counted, and no token in the logs', async () => {
  sql.state = 'down';

  const { response, body, output } = await captured(() => initialize(`Bearer ${key.token}`));

  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('5');
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(body).toBe('{"message":"the endpoint cannot check keys right now; retry in a few seconds"}');
  expect(body).toBe(GATEWAY_RESPONSES.authorizerFailure.body);
  expect(output).toContain('"Name":"authorizer_failure"');
  expect(output).toContain('"level":"ERROR"');
  const hash = createHash('sha256').update(key.token).digest('hex');
  for (const secret of [key.token.slice(3), hash, hash.toUpperCase(), OUTAGE_MESSAGE]) expect(output).not.toContain(secret);
});

test('database down: a request without a key is still a 401, and /healthz still answers', async () => {
  sql.state = 'down';

  const missing = await captured(() => initialize());
  const health = await captured(() => fetch(`${endpoint.url}/healthz`));

  expect(missing.response.status).toBe(401);
  expect(missing.response.headers.get('www-authenticate')).toMatch(
    /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp", scope="memory"$/,
  );
  expect(health.response.status).toBe(200);
});

test('database back: the same key is served at once', async () => {
  sql.state = 'down';
  await captured(() => initialize(`Bearer ${key.token}`));
  sql.state = 'up';

  const { response } = await captured(() => initialize(`Bearer ${key.token}`));

  expect(response.status).toBe(200);
});
