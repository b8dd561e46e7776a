import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

interface Recalled {
  memories: {
    id: string;
    content: string;
    agent: string;
    client: string;
    origin: string | null;
    created_at: string;
    restatements: number;
    restated_by: { agent: string; client: string; origin: string | null }[];
  }[];
}

let endpoint: TestEndpoint;
let token: string;
let client: Client;

beforeAll(async () => {
  endpoint = await startTestEndpoint();
  token = (await endpoint.issueKey('research-agent')).token;
  client = await connect(endpoint.mcpUrl, token, { name: 'Claude Desktop', version: '0.9.1' });
});
afterAll(async () => {
  await client.close();
  await endpoint.close();
});

test('every recalled memory names its agent, client, origin and creation time', async () => {
  const before = Date.now();
  await call(client, 'remember', { content: 'The river floods in August.', kind: 'fact', origin: 'conversation 12, turn 4' });
  const { structuredContent } = await call<Recalled>(client, 'recall', { query: 'when does the river flood' });
  const [m] = structuredContent.memories;
  expect(m).toMatchObject({ agent: 'research-agent', client: 'Claude Desktop/0.9.1', origin: 'conversation 12, turn 4' });
  expect(Date.parse(m?.created_at ?? '')).toBeGreaterThanOrEqual(before - 1000);
});

test('the client name reaches later stateless calls through the echoed session id', async () => {
  const other = await connect(endpoint.mcpUrl, token, { name: 'cursor', version: '2.3' });
  await call(other, 'remember', { content: 'Cursor wrote this one.', kind: 'fact' });
  const { structuredContent } = await call<Recalled>(other, 'recall', { query: 'cursor wrote', limit: 1 });
  expect(structuredContent.memories[0]?.client).toBe('cursor/2.3');
  await other.close();
});

test('client info in request _meta wins over the session’s, and is kept printable and short', async () => {
  await client.callTool({
    name: 'remember',
    arguments: { content: 'Meta-declared client memory.', kind: 'fact' },
    _meta: { 'io.naaba/client': { name: `batch\u0007-runner${'x'.repeat(100)}`, version: '7' } },
  });
  const { structuredContent } = await call<Recalled>(client, 'recall', { query: 'meta-declared client memory', limit: 1 });
  const label = structuredContent.memories[0]?.client ?? '';
  expect(label.startsWith('batch-runner')).toBe(true);
  expect(label).toMatch(/^[\x20-\x7e]+$/);
  expect(label.length).toBeLessThanOrEqual(64 + 1 + 32);
});

test('a restatement with other case, accents and spacing merges: one memory, count 2, both origins kept', async () => {
  const first = await call<{ id: string; outcome: string }>(client, 'remember', {
    content: 'Le siège est à Ouagadougou.',
    kind: 'fact',
    origin: 'email 1',
  });
  const second = await call<{ id: string; outcome: string; merged_into: string }>(client, 'remember', {
    content: '  le   SIEGE est a ouagadougou ',
    kind: 'fact',
    origin: 'email 2',
  });
  expect(first.structuredContent.outcome).toBe('stored');
  expect(second.structuredContent).toMatchObject({ outcome: 'merged', merged_into: first.structuredContent.id });
  const { structuredContent } = await call<Recalled>(client, 'recall', { query: 'siège Ouagadougou', limit: 50 });
  const matches = structuredContent.memories.filter((m) => m.content.toLowerCase().includes('ouagadougou'));
  expect(matches).toHaveLength(1);
  expect(matches[0]).toMatchObject({ restatements: 2, origin: 'email 1', content: 'Le siège est à Ouagadougou.' });
  expect(matches[0]?.restated_by.map((s) => s.origin)).toEqual(['email 2']);
});
