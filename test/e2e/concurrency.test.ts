import { sql } from '../../lambda/adapters/pg/sql/template.js';
import type { Query } from '../../lambda/adapters/pg/sql-client.js';
import { call, connect, startTestEndpoint, type TestEndpoint, textOf } from '../support/endpoint.js';

let endpoint: TestEndpoint;
beforeAll(async () => {
  endpoint = await startTestEndpoint({
    env: { NAABA_CURATION: JSON.stringify({ kinds: { note: { ceiling: 10 }, fact: { ceiling: 100 } } }) },
  });
});
afterAll(async () => endpoint.close());

const count = async (query: Query) => (await endpoint.sql.query<{ n: number }>(query))[0]?.n ?? -1;

test('50 concurrent remembers for one user and kind with ceiling 10: at most 10 kept, one journal line per eviction, nothing else lost', async () => {
  const key = await endpoint.issueKey('busy-agent');
  const client = await connect(endpoint.mcpUrl, key.token);
  const bystander = await call<{ id: string }>(client, 'remember', { content: 'A fact that must not be lost.', kind: 'fact' });
  // Thirteen agents of the same user, so that no key has more than the 4 requests one key may have
  // in progress: none waits for a slot, a wait bounded in time that a busy machine would outlast.
  const others = await Promise.all(
    Array.from({ length: 12 }, async (_, i) =>
      connect(endpoint.mcpUrl, (await endpoint.issueKey(`agent-${i + 2}`, undefined, key.userId)).token),
    ),
  );
  const agents = [client, ...others];

  const calls = Array.from({ length: 50 }, (_, i) =>
    (agents[i % agents.length] ?? client).callTool({
      name: 'remember',
      arguments: { content: `Concurrent note number ${i} about topic ${i * 7}`, kind: 'note' },
    }),
  );
  const results = await Promise.all(calls);

  const failed = results.filter((r) => r.isError);
  for (const r of failed) expect(textOf(r as never)).toMatch(/retry/);
  const stored = results.filter((r) => !r.isError).map((r) => r.structuredContent as { outcome: string; evicted: number });
  expect(stored.length + failed.length).toBe(50);
  expect(stored.every((s) => s.outcome === 'stored')).toBe(true);

  const evicted = stored.reduce((n, s) => n + s.evicted, 0);
  expect(await count(sql`SELECT count(*)::int4 AS n FROM memories WHERE kind = 'note'`)).toBe(Math.min(10, stored.length));
  expect(evicted).toBe(stored.length - Math.min(10, stored.length));
  expect(await count(sql`SELECT count(*)::int4 AS n FROM journal WHERE rule = 'ceiling'`)).toBe(evicted);
  expect(await count(sql`SELECT count(*)::int4 AS n FROM journal`)).toBe(evicted);

  const facts = await call<{ memories: { id: string }[] }>(client, 'recall', {
    query: 'fact that must not be lost',
    kinds: ['fact'],
  });
  expect(facts.structuredContent.memories.map((m) => m.id)).toEqual([bystander.structuredContent.id]);
  for (const agent of agents) await agent.close();
});
