import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connect, startTestEndpoint, type TestEndpoint, textOf } from '../support/endpoint.js';

/** Every property name anywhere in a JSON schema. */
function propertyNames(schema: unknown): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const node = schema as { properties?: Record<string, unknown>; items?: unknown };
  const own = Object.entries(node.properties ?? {}).flatMap(([name, child]) => [name, ...propertyNames(child)]);
  return [...own, ...propertyNames(node.items)];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let endpoint: TestEndpoint;
let client: Client;

beforeAll(async () => {
  endpoint = await startTestEndpoint();
  client = await connect(endpoint.mcpUrl, (await endpoint.issueKey('alice')).token);
});
afterAll(async () => {
  await client.close();
  await endpoint.close();
});

test('tools/list returns exactly the four tools, none with an identity-like input', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(['curation_state', 'forget', 'recall', 'remember']);
  const names = tools.flatMap((t) => propertyNames(t.inputSchema));
  expect(names.length).toBeGreaterThan(5);
  expect(names.filter((n) => /user|owner|tenant|account|region|principal|identity/i.test(n))).toEqual([]);
});

test('annotations tell the truth: curation_state read-only, recall not destructive, forget destructive', async () => {
  const { tools } = await client.listTools();
  const by = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
  expect(by.curation_state).toMatchObject({ readOnlyHint: true });
  expect(by.recall).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  expect(by.forget).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  expect(by.remember).toMatchObject({ readOnlyHint: false });
  expect(tools.every((t) => t.outputSchema !== undefined)).toBe(true);
});

test('every tool answers over HTTP with its whole structured content and a short text rendering', async () => {
  const remembered = await call<{ id: string }>(client, 'remember', { content: 'Tea is served at four.', kind: 'fact' });
  const id = remembered.structuredContent.id;
  expect(remembered.structuredContent).toEqual({
    id: expect.stringMatching(UUID),
    kind: 'fact',
    outcome: 'stored',
    evicted: 0,
    judge: expect.any(String),
    pinned: false,
  });
  expect(textOf(remembered)).toBe(`stored ${id} (fact); not pinned`);

  const recalled = await call(client, 'recall', { query: 'tea time' });
  expect(recalled.structuredContent).toEqual({
    memories: [
      {
        id,
        kind: 'fact',
        content: 'Tea is served at four.',
        distance: expect.any(Number),
        score: expect.any(Number),
        created_at: expect.stringMatching(ISO),
        last_useful_at: expect.stringMatching(ISO),
        recall_count: 1,
        restatements: 1,
        pinned: false,
        origin: null,
        agent: 'alice',
        client: expect.any(String),
        restated_by: [],
        conflicts: [],
        superseded_by: null,
        supersedes: [],
      },
    ],
  });
  expect(textOf(recalled)).toMatch(
    new RegExp(`^1 memory, best first:\\n1\\. \\(fact, score=0\\.\\d{4}, d=\\d\\.\\d{3}, id ${id}\\) Tea is served at four\\.$`),
  );

  const state = await call<{ counts: unknown; journal: unknown; rules: { kinds: Record<string, unknown> } }>(
    client,
    'curation_state',
    {},
  );
  expect(Object.keys(state.structuredContent).sort()).toEqual(['counts', 'journal', 'rules']);
  expect(state.structuredContent.counts).toEqual({
    per_kind: { fact: 1, preference: 0, instruction: 0, event: 0, session: 0 },
    pinned: 0,
    total: 1,
  });
  expect(Object.keys(state.structuredContent.rules.kinds).sort()).toEqual([
    'event',
    'fact',
    'instruction',
    'preference',
    'session',
  ]);

  const forgotten = await call(client, 'forget', { ids: [id] });
  expect(forgotten.structuredContent).toEqual({ count: 1, deleted: [id], journal_lines_removed: 0 });
  expect(textOf(forgotten)).toBe('forgot 1 memory');
  for (const result of [remembered, recalled, state, forgotten]) {
    expect(result.isError).toBeFalsy();
    expect(textOf(result).length).toBeLessThan(2000);
  }
});

test('recall returns the best first (score, then distance explained) and marks the returned memories useful', async () => {
  await call(client, 'remember', { content: 'The ferry leaves from pier seven.', kind: 'event' });
  // Sharing `the` and `pier` with the query, so the relevance floor keeps it (decision 0058).
  await call(client, 'remember', { content: 'The bakery by the pier bakes bread on Mondays.', kind: 'event' });
  const first = await call<{ memories: { content: string; distance: number; score: number }[] }>(client, 'recall', {
    query: 'which pier does the ferry leave from',
    kinds: ['event'],
    limit: 2,
  });
  const [nearest, next] = first.structuredContent.memories;
  expect(nearest?.content).toBe('The ferry leaves from pier seven.');
  expect(nearest?.distance).toBeLessThan(next?.distance ?? 0);
  expect(nearest?.score).toBeGreaterThan(next?.score ?? 0);
  expect(textOf(first)).toMatch(/^2 memories, best first:\n1\. \(event, score=0\.\d{4}, d=0\.\d{3}, id /);
  const again = await call<{ memories: { recall_count: number }[] }>(client, 'recall', {
    query: 'ferry pier',
    kinds: ['event'],
    limit: 1,
  });
  expect(again.structuredContent.memories[0]?.recall_count).toBe(2);
});

test.each<[string, boolean]>([
  ['the of and', true],
  ['?!…', false],
  ['x', false],
  ['🙂', false],
])('a query of stop words, punctuation, one character or a symbol is answered, never refused: %j', async (query, found) => {
  await call(client, 'remember', { content: 'Awa keeps the ledger of the cooperative.', kind: 'fact' });
  const result = await call<{ memories: { content: string }[] }>(client, 'recall', { query, kinds: ['fact'], limit: 5 });
  expect(result.isError).toBeFalsy();
  // Shared words find the memory; with nothing shared and nothing near, nothing (the relevance floor).
  expect(result.structuredContent.memories.length > 0).toBe(found);
});

test('remember pins, and a restatement with pinned: false unpins; one without pinned leaves the pin alone', async () => {
  const content = 'The spare key hangs behind the boiler.';
  const pinnedNow = async () => {
    const found = await call<{ memories: { content: string; pinned: boolean }[] }>(client, 'recall', {
      query: 'spare key boiler',
      kinds: ['fact'],
    });
    return found.structuredContent.memories.find((m) => m.content === content)?.pinned;
  };
  const pins = async () =>
    (await call<{ counts: { pinned: number } }>(client, 'curation_state', {})).structuredContent.counts.pinned;
  const before = await pins();
  const stored = await call<{ id: string }>(client, 'remember', { content, kind: 'fact', pinned: true });
  expect([await pinnedNow(), await pins()]).toEqual([true, before + 1]);
  const id = stored.structuredContent.id;
  expect([stored.structuredContent, textOf(stored)]).toEqual([
    expect.objectContaining({ outcome: 'stored', pinned: true }),
    `stored ${id} (fact); pinned`,
  ]);

  const kept = await call<{ id: string; outcome: string }>(client, 'remember', { content, kind: 'fact' });
  expect(kept.structuredContent).toMatchObject({ id, outcome: 'merged', pinned: true });
  expect(textOf(kept)).toBe(`merged into existing memory ${id} (exact restatement); pinned`);
  expect(await pinnedNow()).toBe(true);

  const unpinned = await call<{ id: string; outcome: string }>(client, 'remember', { content, kind: 'fact', pinned: false });
  expect(unpinned.structuredContent).toMatchObject({ id, outcome: 'merged', pinned: false });
  expect(textOf(unpinned)).toBe(`merged into existing memory ${id} (exact restatement); not pinned`);
  expect([await pinnedNow(), await pins()]).toEqual([false, before]);
});

test('at the pin limit remember keeps the memory unpinned and says so, in its text and structured content', async () => {
  const endpoint = await startTestEndpoint({ env: { NAABA_CURATION: JSON.stringify({ pin_limit: 1 }) } });
  const bob = await connect(endpoint.mcpUrl, (await endpoint.issueKey('bob')).token);
  try {
    await call(bob, 'remember', { content: 'The alarm code is 4711.', kind: 'fact', pinned: true });
    const over = await call<{ id: string }>(bob, 'remember', { content: 'The gate opens at seven.', kind: 'fact', pinned: true });
    expect(over.isError).toBeFalsy();
    expect(over.structuredContent).toMatchObject({ outcome: 'stored', pinned: false, pin_limit_reached: true });
    expect(textOf(over)).toBe(
      `stored ${over.structuredContent.id} (fact); NOT pinned: the pin limit (1) is reached, so it was kept unpinned (unpin or forget a pinned memory, then remember it again with pinned: true)`,
    );
    const found = await call<{ memories: { id: string; pinned: boolean }[] }>(bob, 'recall', { query: 'gate opens' });
    expect(found.structuredContent.memories.find((m) => m.id === over.structuredContent.id)?.pinned).toBe(false);
  } finally {
    await bob.close();
    await endpoint.close();
  }
});
