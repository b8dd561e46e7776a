import { startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

let endpoint: TestEndpoint;
beforeAll(async () => {
  endpoint = await startTestEndpoint({ env: { NAABA_REGION: 'eu-central-1' } });
});
afterAll(async () => endpoint.close());

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '8' } },
});

const post = (authorization: string | undefined) =>
  fetch(endpoint.mcpUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: initialize,
  });

test('an authorized initialize answers JSON and a session id carrying the client name', async () => {
  const key = await endpoint.issueKey('alice');
  const response = await post(`Bearer ${key.token}`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/application\/json/);
  expect(response.headers.get('mcp-session-id')).toMatch(/^nbc1\./);
});

describe('refused tokens get 401 whose WWW-Authenticate points at the protected resource metadata', () => {
  const cases: [string, () => Promise<string | undefined>][] = [
    ['missing', async () => undefined],
    ['empty', async () => ''],
    ['not a bearer', async () => 'Basic dXNlcjpwYXNz'],
    ['malformed token', async () => 'Bearer nb_short'],
    ['unknown token', async () => `Bearer nb_${'A'.repeat(43)}`],
    [
      'revoked token',
      async () => {
        const key = await endpoint.issueKey('soon-revoked');
        await (await endpoint.container.keys()).revoke(key.keyId);
        return `Bearer ${key.token}`;
      },
    ],
  ];
  test.each(cases)('%s', async (_label, header) => {
    const response = await post(await header());
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${endpoint.url}/.well-known/oauth-protected-resource/mcp", scope="memory"`,
    );
  });
});

test('a key of another region gets 403 naming the key’s region', async () => {
  const key = await endpoint.issueKey('traveller', 'us-east-1');
  const response = await post(`Bearer ${key.token}`);
  expect(response.status).toBe(403);
  expect(((await response.json()) as { message: string }).message).toContain('us-east-1');
});

test('GET and DELETE on /mcp answer 405', async () => {
  for (const method of ['GET', 'DELETE']) {
    const response = await fetch(endpoint.mcpUrl, { method });
    expect(response.status).toBe(405);
  }
});

test('a key issued while the server runs is accepted at once', async () => {
  const key = await endpoint.issueKey('late-comer');
  expect((await post(`Bearer ${key.token}`)).status).toBe(200);
});

test.each([
  ['POST', '/mcp/'],
  ['POST', '/x/mcp'],
  ['GET', '/.well-known/oauth-protected-resource/other'],
  ['GET', '/healthz/extra'],
])('%s %s with a valid key: 404 naming the real endpoint, as only the declared routes exist', async (method, path) => {
  const key = await endpoint.issueKey('router');
  const response = await fetch(`${endpoint.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key.token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    ...(method === 'POST' ? { body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' } : {}),
  });
  expect(response.status).toBe(404);
  expect(((await response.json()) as { message: string }).message).toContain('POST /mcp');
});
