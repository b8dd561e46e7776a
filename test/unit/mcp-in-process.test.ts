import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ResponseBudget } from '../../lambda/mcp/context.js';
import { createMcpServer } from '../../lambda/mcp/server.js';
import type { Principal } from '../../lambda/memory/model.js';
import { CLIENT, principal, serviceOver } from '../support/memory.js';

/**
 * The four tools in process: the MCP server the endpoint builds per request, linked to the SDK's
 * client by its in-memory transport, over the reference store with a fixed clock and fixed ids. Each
 * answer is checked whole, structured content and text, so a field added, dropped or renamed fails
 * here in seconds; the HTTP end-to-end tests (test/e2e) keep checking the same tools over the wire.
 */

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const AT = '2026-01-01T00:00:00.000Z';
const quiet = { info: () => undefined, error: () => undefined };

let world: ReturnType<typeof serviceOver>;
const open: Client[] = [];

async function clientAs(who: Principal): Promise<Client> {
  const server = createMcpServer({
    memory: world.service,
    principal: who,
    client: CLIENT,
    log: quiet,
    budget: new ResponseBudget(1_000_000),
  });
  const [near, far] = InMemoryTransport.createLinkedPair();
  await server.connect(far);
  const client = new Client({ name: 'in-process', version: '1' });
  await client.connect(near);
  open.push(client);
  return client;
}

beforeEach(() => {
  let n = 0;
  world = serviceOver('memory', { newId: () => ID(++n) });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

test('tools/list: the four tools, each with an output schema', async () => {
  const client = await clientAs(principal());
  const { tools } = await client.listTools();
  expect(tools.map((t) => [t.name, t.outputSchema?.type])).toEqual([
    ['remember', 'object'],
    ['recall', 'object'],
    ['forget', 'object'],
    ['curation_state', 'object'],
  ]);
});

test('remember, a restatement, recall, curation_state and forget: every answer whole', async () => {
  const client = await clientAs(principal());

  expect(await client.callTool({ name: 'remember', arguments: { content: 'Tea is served at four.', kind: 'fact' } })).toEqual({
    content: [{ type: 'text', text: `stored ${ID(1)} (fact); not pinned` }],
    structuredContent: { id: ID(1), kind: 'fact', outcome: 'stored', evicted: 0, judge: 'not_asked', pinned: false },
  });

  expect(
    await client.callTool({ name: 'remember', arguments: { content: 'Tea is served at four.', kind: 'fact', pinned: true } }),
  ).toEqual({
    content: [{ type: 'text', text: `merged into existing memory ${ID(1)} (exact restatement); pinned` }],
    structuredContent: {
      id: ID(1),
      kind: 'fact',
      outcome: 'merged',
      merged_into: ID(1),
      evicted: 0,
      judge: 'exact',
      pinned: true,
    },
  });

  const recalled = await client.callTool({ name: 'recall', arguments: { query: 'when is tea served' } });
  const restatement = { agent: 'test-agent', client: 'tests/1', origin: null, at: AT };
  expect(recalled).toEqual({
    content: [
      {
        type: 'text',
        text: `1 memory, best first:\n1. (fact, score=0.1364, d=0.171, id ${ID(1)}) Tea is served at four.`,
      },
    ],
    structuredContent: {
      memories: [
        {
          id: ID(1),
          kind: 'fact',
          content: 'Tea is served at four.',
          distance: expect.closeTo(0.17093, 5),
          score: expect.closeTo(0.136364, 6),
          created_at: AT,
          last_useful_at: AT,
          recall_count: 1,
          restatements: 2,
          pinned: true,
          origin: null,
          agent: 'test-agent',
          client: 'tests/1',
          restated_by: [restatement],
          conflicts: [],
          superseded_by: null,
          supersedes: [],
        },
      ],
    },
  });

  const state = await client.callTool({ name: 'curation_state', arguments: {} });
  const kind = (ceiling: number, ttl: number | null) => ({ ceiling, ttl_s: ttl, dedup: true, superseded_grace_s: 604800 });
  expect(state.structuredContent).toEqual({
    rules: {
      kinds: {
        fact: kind(500, null),
        preference: kind(200, null),
        instruction: kind(100, null),
        event: kind(500, null),
        session: kind(100, 86400),
      },
      rules_text: [
        expect.stringMatching(/^ceiling: /),
        expect.stringMatching(/^expiry: /),
        expect.stringMatching(/^duplicate: /),
        expect.stringMatching(/^superseded: .*forgetting the newer one first makes it current again$/),
      ],
      pin_limit: 50,
      journal_retention_s: 2592000,
      judge: { provider: 'scripted', last_call_ok: null, last_call_at: null },
      embedder: 'local-lexical-v2/256',
      source: 'defaults',
    },
    counts: { per_kind: { fact: 1, preference: 0, instruction: 0, event: 0, session: 0 }, pinned: 1, total: 1 },
    journal: { lines: [{ at: AT, kind: 'fact', rule: 'duplicate', age_s: 0, recall_count: 0 }] },
  });
  const text = (state.content as { text: string }[])[0]?.text ?? '';
  expect(text.split('\n')[0]).toBe(
    'memories: fact 1/500, preference 0/200, instruction 0/100, event 0/500, session 0/100; pinned 1/50',
  );
  expect(text.split('\n').at(-1)).toBe(`${AT} duplicate fact age 0s recalled 0x`);

  expect(await client.callTool({ name: 'forget', arguments: { ids: [ID(1)] } })).toEqual({
    content: [{ type: 'text', text: 'forgot 1 memory' }],
    structuredContent: { count: 1, deleted: [ID(1)], journal_lines_removed: 0 },
  });
  expect(await client.callTool({ name: 'recall', arguments: { query: 'when is tea served' } })).toEqual({
    content: [{ type: 'text', text: 'no memories matched' }],
    structuredContent: { memories: [] },
  });
});

test('bad arguments are a tool error that names the field, and write nothing', async () => {
  const client = await clientAs(principal());
  const refused = await client.callTool({ name: 'remember', arguments: { content: 7, kind: 'fact' } });
  expect(refused.isError).toBe(true);
  expect((refused.content as { text: string }[])[0]?.text).toMatch(/Invalid arguments for tool remember: .*at content/);
  expect(refused.structuredContent).toBeUndefined();
  expect(await world.inspect.count()).toBe(0);
});

test('who is asking comes from the context alone: another caller sees and forgets nothing of the first', async () => {
  const first = await clientAs(principal());
  const second = await clientAs(principal());
  await first.callTool({ name: 'remember', arguments: { content: 'The spare key is under the blue pot.', kind: 'fact' } });
  expect((await second.callTool({ name: 'recall', arguments: { query: 'spare key' } })).structuredContent).toEqual({
    memories: [],
  });
  expect((await second.callTool({ name: 'forget', arguments: { ids: [ID(1)] } })).structuredContent).toEqual({
    count: 0,
    deleted: [],
    journal_lines_removed: 0,
  });
  expect(await world.inspect.contents()).toEqual(['The spare key is under the blue pot.']);
});
