import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { connect as connectSocket } from 'node:net';
import { setEnvironment } from '../handlers/process-env.js';
import { capturedOutput } from '../support/output.js';

/**
 * Odd requests get a clear 4xx before any work (decision 0066), over a raw socket where the
 * request itself is odd: absolute-form targets, methods no route answers, a Host with user info,
 * a path or a fragment (never echoed), prototype names as kinds, malformed JSON-RPC params; and a
 * client that hangs up leaves no ERROR line.
 */

// Logging at INFO, set before the handlers' modules load: an ERROR line would show.
const restoreEnvironment = setEnvironment({ NAABA_LOG_LEVEL: 'INFO' });
const { startTestEndpoint } = await import('../support/endpoint.js');

type Endpoint = Awaited<ReturnType<typeof startTestEndpoint>>;
let endpoint: Endpoint;
let token: string;

beforeAll(async () => {
  endpoint = await startTestEndpoint();
  token = (await endpoint.issueKey('odd')).token;
});
afterAll(async () => {
  await endpoint.close();
  restoreEnvironment();
});

/** Sends `head` (and `body`) as written on one connection that closes after the answer; resolves the status and the whole answer. */
function raw(head: string, body = ''): Promise<{ status: number; text: string }> {
  const url = new URL(endpoint.url);
  return new Promise((resolve, reject) => {
    const socket = connectSocket(Number(url.port), url.hostname, () =>
      socket.write(`${head}\r\nConnection: close\r\n\r\n${body}`),
    );
    let text = '';
    socket.on('data', (d) => {
      text += d;
    });
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    socket.on('error', reject);
  });
}

const host = () => `Host: ${new URL(endpoint.url).host}`;
const count = async () => (await endpoint.sql.query<{ n: number }>(sql`SELECT count(*)::int AS n FROM memories`))[0]?.n;

test.each<[string, string, number]>([
  ['an absolute-form target that is not even a URL', 'GET http://[ HTTP/1.1', 400],
  ['an absolute-form target', 'GET http://127.0.0.1/healthz HTTP/1.1', 400],
  ['the asterisk form', 'OPTIONS * HTTP/1.1', 400],
  ['TRACE', 'TRACE / HTTP/1.1', 405],
  ['TRACE on /mcp', 'TRACE /mcp HTTP/1.1', 405],
  ['PUT on the page', 'PUT / HTTP/1.1', 405],
  ['PATCH on /healthz', 'PATCH /healthz HTTP/1.1', 405],
  ['a method the HTTP parser does not know', 'BREW /mcp HTTP/1.1', 400],
])('%s: %i, and nothing runs', async (_label, line, status) => {
  const before = await count();
  const answer = await raw(`${line}\r\n${host()}\r\nContent-Length: 0`);
  expect(answer.status).toBe(status);
  expect(answer.text).toMatch(/"message":"/);
  expect(await count()).toBe(before);
});

test.each([
  ['user info', 'evil.example@127.0.0.1'],
  ['a path and a fragment', '127.0.0.1/evil#'],
  ['a query', '127.0.0.1?evil'],
])('a Host with %s is a 400 on the metadata, the 401 and /mcp, and is never echoed', async (_label, value) => {
  for (const line of [
    'GET /.well-known/oauth-authorization-server HTTP/1.1',
    'GET /.well-known/oauth-protected-resource/mcp HTTP/1.1',
    'POST /mcp HTTP/1.1',
  ]) {
    const answer = await raw(`${line}\r\nHost: ${value}:${new URL(endpoint.url).port}\r\nContent-Length: 0`);
    expect(answer.status).toBe(400);
    expect(answer.text).not.toContain('evil');
  }
});

test('a well-formed foreign Host is 403 before the 401, so the challenge never carries it', async () => {
  const answer = await raw('POST /mcp HTTP/1.1\r\nHost: evil.example:80\r\nContent-Length: 0');
  expect(answer.status).toBe(403);
  expect(answer.text).not.toContain('evil.example');
});

const api = (method: string, path: string) =>
  fetch(`${endpoint.url}/api/${path}`, { method, headers: { authorization: `Bearer ${token}` } });

test.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
  'the kind %s is no kind: 400 naming the valid ones, on browse and on delete, and nothing is deleted',
  async (kind) => {
    const client = await import('../support/endpoint.js').then((m) => m.connect(endpoint.mcpUrl, token));
    await client.callTool({ name: 'remember', arguments: { content: `kept while ${kind} is refused`, kind: 'fact' } });
    const before = await count();
    for (const answer of [await api('GET', `memories?kind=${kind}`), await api('DELETE', `memories?kind=${kind}`)]) {
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: string }).error).toMatch(/fact/);
    }
    const recalled = await client.callTool({ name: 'recall', arguments: { query: 'kept', kinds: [kind] } });
    expect(recalled.isError).toBe(true);
    expect(await count()).toBe(before);
    await client.close();
  },
);

const rpc = async (body: unknown) => {
  const answer = await fetch(endpoint.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(body),
  });
  return { status: answer.status, body: (await answer.json()) as { id: unknown; error?: { code: number; message: string } } };
};

test.each<[string, unknown, RegExp]>([
  [
    'initialize with a client name that is a number',
    {
      jsonrpc: '2.0',
      id: 7,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 123, version: '1' } },
    },
    /^Invalid params for initialize: params\.clientInfo\.name: expected string, received number$/,
  ],
  [
    'tools/call without params',
    { jsonrpc: '2.0', id: 7, method: 'tools/call' },
    /^Invalid params for tools\/call: params: expected object/,
  ],
  [
    'tools/call whose name is not text',
    { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: ['recall'] } },
    /^Invalid params for tools\/call: params\.name: expected string/,
  ],
])('%s: -32602 in words, no raw validator output', async (_label, message, words) => {
  const { body } = await rpc(message);
  expect(body.id).toBe(7);
  expect(body.error?.code).toBe(-32602);
  expect(body.error?.message).toMatch(words);
  expect(body.error?.message).not.toMatch(/[[{]"/);
});

test('in a batch, one message with bad params refuses the batch with 400 before any of it runs', async () => {
  const before = await count();
  const answer = await rpc([
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'remember', arguments: { content: 'never stored', kind: 'fact' } },
    },
    { jsonrpc: '2.0', id: 2, method: 'tools/call' },
  ]);
  expect(answer.status).toBe(400);
  expect(answer.body.error?.code).toBe(-32602);
  expect(await count()).toBe(before);
});

test('a client that hangs up mid-body leaves no ERROR line, and the server goes on answering', async () => {
  const url = new URL(endpoint.url);
  const { output } = await capturedOutput(async () => {
    await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<void>((resolve) => {
            const socket = connectSocket(Number(url.port), url.hostname, () => {
              socket.write(
                `POST /mcp HTTP/1.1\r\n${host()}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"jsonrpc":`,
              );
              setTimeout(() => {
                socket.resetAndDestroy();
                resolve();
              }, 20);
            });
            socket.on('error', () => resolve());
          }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
  });
  expect(output).not.toContain('"level":"ERROR"');
  expect((await fetch(`${endpoint.url}/healthz`)).status).toBe(200);
});
