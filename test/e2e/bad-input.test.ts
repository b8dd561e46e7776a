import { sql } from '../../lambda/adapters/pg/sql/template.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connect, startTestEndpoint, type TestEndpoint, textOf } from '../support/endpoint.js';

let endpoint: TestEndpoint;
let client: Client;
let token: string;

const rows = async () => {
  const [m] = await endpoint.sql.query<{ n: number }>(sql`SELECT count(*)::int4 AS n FROM memories`);
  const [j] = await endpoint.sql.query<{ n: number }>(sql`SELECT count(*)::int4 AS n FROM journal`);
  return { memories: m?.n, journal: j?.n };
};

beforeAll(async () => {
  endpoint = await startTestEndpoint();
  token = (await endpoint.issueKey('alice')).token;
  client = await connect(endpoint.mcpUrl, token);
  await client.callTool({ name: 'remember', arguments: { content: 'A memory that must survive bad input.', kind: 'fact' } });
});
afterAll(async () => {
  await client.close();
  await endpoint.close();
});

const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

const toolCases: [string, string, Record<string, unknown>, RegExp][] = [
  ['empty content', 'remember', { content: '', kind: 'fact' }, /content/i],
  ['blank content', 'remember', { content: '   \n ', kind: 'fact' }, /content must not be empty/],
  ['content over 8 KiB of UTF-8', 'remember', { content: 'é'.repeat(4200), kind: 'fact' }, /8400 bytes; the limit is 8192/],
  ['content over 8 KiB of characters', 'remember', { content: 'x'.repeat(9000), kind: 'fact' }, /8192/],
  ['unknown kind', 'remember', { content: 'fine', kind: 'gossip' }, /fact.*preference.*instruction.*event.*session/],
  ['NUL byte in content', 'remember', { content: 'before\u0000after', kind: 'fact' }, /control characters/],
  ['NUL byte in origin', 'remember', { content: 'fine', kind: 'fact', origin: 'a\u0000b' }, /control characters/],
  [
    'an unpaired surrogate (would be stored as U+FFFD)',
    'remember',
    { content: 'half \uD83D a smile', kind: 'fact' },
    /unpaired surrogate/,
  ],
  ['zero-width characters only', 'remember', { content: '\u200B\u200D\uFEFF', kind: 'fact' }, /content must not be empty/],
  ['a C1 control character', 'remember', { content: 'line\u0085break', kind: 'fact' }, /control characters/],
  ['a bidirectional override', 'remember', { content: 'pay \u202Eoclaw\u202C now', kind: 'fact' }, /bidirectional/],
  ['an origin over 512 characters', 'remember', { content: 'fine', kind: 'fact', origin: 'o'.repeat(513) }, /origin/],
  ['content of the wrong type', 'remember', { content: 42, kind: 'fact' }, /content/],
  ['pinned of the wrong type', 'remember', { content: 'fine', kind: 'fact', pinned: 'yes' }, /pinned/],
  ['missing kind', 'remember', { content: 'fine' }, /kind/],
  ['limit zero', 'recall', { query: 'x', limit: 0 }, /limit/],
  ['limit over the maximum', 'recall', { query: 'x', limit: 51 }, /limit/],
  ['limit not an integer', 'recall', { query: 'x', limit: 2.5 }, /limit/],
  ['unknown kind in recall', 'recall', { query: 'x', kinds: ['gossip'] }, /fact/],
  ['empty query', 'recall', { query: '' }, /query/],
  ['forget with neither ids nor all', 'forget', {}, /either ids, or all/],
  ['forget with both ids and all', 'forget', { ids: [uuid(1)], all: true }, /either ids, or all/],
  ['forget all: false', 'forget', { all: false }, /all/],
  ['a malformed id', 'forget', { ids: ['not-a-uuid'] }, /ids/],
  ['101 ids', 'forget', { ids: Array.from({ length: 101 }, (_, i) => uuid(i)) }, /ids/],
  ['a huge list of ids', 'forget', { ids: Array.from({ length: 5000 }, (_, i) => uuid(i)) }, /elements|ids/],
  ['page size out of range', 'curation_state', { page_size: 1000 }, /page_size/],
  [
    'a crafted cursor (36 dashes for an id)',
    'curation_state',
    { cursor: Buffer.from(`2020-01-01T00:00:00.000Z|${'-'.repeat(36)}`).toString('base64url') },
    /cursor is not one this server gave/,
  ],
  [
    'a crafted cursor (year +275760)',
    'curation_state',
    { cursor: Buffer.from('+275760-09-13T00:00:00.000Z|00000000-0000-4000-8000-000000000001').toString('base64url') },
    /cursor is not one this server gave/,
  ],
  ['a cursor that is not base64 of anything', 'curation_state', { cursor: 'garbage' }, /cursor is not one this server gave/],
];

test('an origin of 512 characters is accepted even when it is more than 512 bytes', async () => {
  const other = await connect(endpoint.mcpUrl, (await endpoint.issueKey('origin-tester')).token);
  const origin = 'é'.repeat(512);
  const result = await other.callTool({
    name: 'remember',
    arguments: { content: 'Origins count characters.', kind: 'fact', origin },
  });
  await other.close();
  expect(result.isError).toBeFalsy();
  expect((result.structuredContent as { outcome: string }).outcome).toBe('stored');
});

test.each(toolCases)('%s: a clear tool error and nothing written', async (_label, name, args, message) => {
  const before = await rows();
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBe(true);
  expect(textOf(result as never)).toMatch(message);
  expect(await rows()).toEqual(before);
});

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(endpoint.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });

const rpcCases: [string, string, number, number][] = [
  ['malformed JSON', '{"jsonrpc": "2.0", "method": ', 400, -32700],
  ['not JSON-RPC', '{"hello": "world"}', 400, -32700],
  ['an array of junk', '[1, 2, 3]', 400, -32700],
  ['an empty batch', '[]', 400, -32600],
  [
    'a batch of 11 calls (at most 10)',
    JSON.stringify(
      Array.from({ length: 11 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { name: 'remember', arguments: { content: `batched ${i}`, kind: 'fact' } },
      })),
    ),
    400,
    -32600,
  ],
];

test.each(rpcCases)('%s gets a JSON-RPC error and writes nothing', async (_label, body, status, code) => {
  const before = await rows();
  const response = await post(body);
  expect(response.status).toBe(status);
  expect(((await response.json()) as { error: { code: number } }).error.code).toBe(code);
  expect(await rows()).toEqual(before);
});

test.each(['null', '[1]', '"recall"'])('tools/call with arguments %s: -32602 in words, not a validator dump', async (args) => {
  const before = await rows();
  const response = await post(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"recall","arguments":${args}}}`);
  const body = (await response.json()) as { id: number; error: { code: number; message: string } };
  expect(body).toMatchObject({
    id: 9,
    error: { code: -32602, message: 'Invalid params: tools/call arguments must be an object' },
  });
  expect(await rows()).toEqual(before);
});

test('an unknown method is a JSON-RPC method-not-found error', async () => {
  const response = await post('{"jsonrpc":"2.0","id":7,"method":"memories/dump","params":{}}');
  const body = (await response.json()) as { id: number; error: { code: number } };
  expect(body).toMatchObject({ id: 7, error: { code: -32601 } });
});

test('a tool call may arrive without initialize (stateless) and still works', async () => {
  const response = await post(
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"query":"survive bad input"}}}',
  );
  const body = (await response.json()) as { result: { structuredContent: { memories: unknown[] } } };
  expect(body.result.structuredContent.memories).toHaveLength(1);
});
