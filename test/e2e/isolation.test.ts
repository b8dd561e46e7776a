import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connect, startTestEndpoint, type TestEndpoint, textOf } from '../support/endpoint.js';

let endpoint: TestEndpoint;
let a: Client;
let b: Client;

beforeAll(async () => {
  endpoint = await startTestEndpoint();
  a = await connect(endpoint.mcpUrl, (await endpoint.issueKey('agent-a')).token);
  b = await connect(endpoint.mcpUrl, (await endpoint.issueKey('agent-b')).token);
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
  await endpoint.close();
});

test('key B recalls nothing A remembered, cannot forget A’s ids, and counts none of A’s memories', async () => {
  const ids: string[] = [];
  for (const content of ['A keeps the spare key under the mat.', 'A was born in Bobo-Dioulasso.']) {
    ids.push((await call<{ id: string }>(a, 'remember', { content, kind: 'fact' })).structuredContent.id);
  }
  const recalled = await call<{ memories: unknown[] }>(b, 'recall', { query: 'spare key under the mat', limit: 50 });
  expect(recalled.structuredContent.memories).toEqual([]);

  const foreign = await call(b, 'forget', { ids });
  const missing = await call(b, 'forget', {
    ids: ['0b0e2a3c-5f0e-4c8e-9d9a-3f1b2c4d5e6f', '1c1f3b4d-6a1f-4d9f-8eab-4a2c3d5e6f70'],
  });
  expect(foreign.structuredContent).toEqual(missing.structuredContent);
  expect(textOf(foreign)).toBe(textOf(missing));

  const stateB = await call<{ counts: { total: number } }>(b, 'curation_state', {});
  expect(stateB.structuredContent.counts.total).toBe(0);
  const stateA = await call<{ counts: { total: number } }>(a, 'curation_state', {});
  expect(stateA.structuredContent.counts.total).toBe(2);

  // Both share a word with the query (`A`): the relevance floor keeps what matches (decision 0058).
  const stillThere = await call<{ memories: { id: string }[] }>(a, 'recall', { query: 'A spare key', limit: 50 });
  expect(stillThere.structuredContent.memories.map((m) => m.id).sort()).toEqual([...ids].sort());
});

test('two keys of one user share memories; provenance names the agent that wrote each', async () => {
  const first = await endpoint.issueKey('planner');
  const second = await endpoint.issueKey('writer', undefined, first.userId);
  const planner = await connect(endpoint.mcpUrl, first.token);
  const writer = await connect(endpoint.mcpUrl, second.token);
  await call(planner, 'remember', { content: 'The launch is on Friday.', kind: 'event' });
  const seen = await call<{ memories: { agent: string }[] }>(writer, 'recall', { query: 'launch day' });
  expect(seen.structuredContent.memories.map((m) => m.agent)).toEqual(['planner']);
  await Promise.all([planner.close(), writer.close()]);
});

test('a rare word two users share: each recall finds only its own, and names none of the other’s', async () => {
  await call(a, 'remember', { content: 'Invoice QX-99817 went to the Kaya depot.', kind: 'fact' });
  await call(b, 'remember', { content: 'QX-99817 is also the code of my locker.', kind: 'fact' });
  for (const [client, own] of [
    [a, 'Invoice QX-99817 went to the Kaya depot.'],
    [b, 'QX-99817 is also the code of my locker.'],
  ] as const) {
    const found = await call<{ memories: { content: string }[] }>(client, 'recall', { query: 'QX-99817', limit: 50 });
    const contents = found.structuredContent.memories.map((m) => m.content);
    expect(contents[0]).toBe(own);
    expect(contents.filter((c) => c.includes('QX-99817'))).toEqual([own]);
  }
});
