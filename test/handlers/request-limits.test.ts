import { LocalEmbedder } from '../../lambda/adapters/local/embedder.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { sql } from '../../lambda/adapters/pg/sql/template.js';
import type { CurationService } from '../../lambda/memory/curation/curation-service.js';
import { LIMITS } from '../../lambda/memory/limits.js';
import { ResponseBudget, type ToolContext } from '../../lambda/mcp/context.js';
import { REQUEST_LIMITS, serveMcp } from '../../lambda/mcp/serve.js';
import { guarded, success } from '../../lambda/mcp/tool-result.js';
import { loadable } from '../../bench/loadable.js';
import { HEAVY_STEP_MS } from '../support/budgets.js';
import { freshDatabase } from '../support/database.js';
import { CLIENT, principal, serviceOver } from '../support/memory.js';

/** A database whose statements wait until the test opens the gate: requests stay in progress meanwhile. */
class GatedSql {
  private open!: () => void;
  readonly gate = new Promise<void>((resolve) => {
    this.open = resolve;
  });
  constructor(private readonly real: PgliteSqlClient) {}
  release(): void {
    this.open();
  }
  asClient(): SqlClient {
    return {
      engine: 'postgres',
      query: async (query) => {
        await this.gate;
        return this.real.query(query);
      },
      exec: (script) => this.real.exec(script),
      close: async () => undefined,
    } as SqlClient;
  }
}

const recall = () =>
  new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'recall', arguments: { query: 'anything' } },
    }),
  });
const log = { info: () => undefined, error: () => undefined };

test('one key: 4 requests in progress, 16 more wait their turn, the next is 429 with Retry-After; another key is not held up', async () => {
  const db = await freshDatabase();
  const gated = new GatedSql(db);
  const { service } = serviceOver(gated.asClient());
  const busyKey = principal();
  const queued = REQUEST_LIMITS.concurrentPerKey + REQUEST_LIMITS.waitingPerKey;
  const held = Array.from({ length: queued }, () => serveMcp(recall(), busyKey, service, log));
  await new Promise((resolve) => setTimeout(resolve, 50));

  const refused = await serveMcp(recall(), busyKey, service, log);
  expect(refused.status).toBe(429);
  expect(refused.headers.get('retry-after')).toBe('1');
  expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/4 in progress and 16 waiting/);
  const other = serveMcp(recall(), principal(), service, log);

  gated.release();
  expect((await Promise.all(held)).map((r) => r.status)).toEqual(Array(queued).fill(200));
  expect((await other).status).toBe(200);
  expect((await serveMcp(recall(), busyKey, service, log)).status).toBe(200);
  await db.close();
});

const post = (body: unknown) =>
  new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(body),
  });
const recallCall = (id: number, limit?: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'recall', arguments: { query: 'ledger entry', ...(limit ? { limit } : {}) } },
});

describe('what one request may return', () => {
  let db: PgliteSqlClient;
  let service: CurationService;
  const owner = principal();
  beforeAll(async () => {
    db = await freshDatabase();
    const harness = serviceOver(db);
    service = harness.service;
    // Fifty memories of 8 KiB each, the largest content a memory may have, written in one statement:
    // this is about what recall returns, not how a remember writes (50 of about 1,200 terms each).
    const contents = Array.from({ length: 50 }, (_, i) => {
      const words = Array.from({ length: 1200 }, (_, w) => `w${(i * 7919 + w * 104729) % 99991}`).join(' ');
      return `ledger entry ${i}: ${words}`.slice(0, 8192);
    });
    expect(contents.every((content) => Buffer.byteLength(content) === LIMITS.contentBytes)).toBe(true);
    const embedder = new LocalEmbedder(256);
    const memories = await Promise.all(contents.map((content) => loadable(content, embedder, harness.memory.analyzer)));
    const written = await harness.stores.transfer.load({
      scope: { region: owner.region, userId: owner.userId },
      kind: 'fact',
      expires: false,
      at: harness.clock.now(),
      agent: owner.agent,
      client: `${CLIENT.name}/${CLIENT.version}`,
      memories,
    });
    expect(written).toBe(50);
  }, HEAVY_STEP_MS);
  afterAll(async () => db.close());

  const recalled = async () =>
    (await db.query<{ n: number }>(sql`SELECT coalesce(sum(recall_count), 0)::int4 AS n FROM memories`))[0]?.n ?? -1;

  test('a batch whose recall limits add up past 100 memories is refused before any work, naming what to lower', async () => {
    const before = await recalled();
    const response = await serveMcp(post([1, 2, 3].map((i) => recallCall(i, 50))), owner, service, log);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toMatch(/up to 150 memories; at most 100 per request: lower their limit or send fewer/);
    expect(await recalled()).toBe(before);
  });

  test('the largest batch allowed (10 recalls of 10 memories of 8 KiB) answers in full, within the byte cap', async () => {
    const response = await serveMcp(post(Array.from({ length: 10 }, (_, i) => recallCall(i + 1))), owner, service, log);
    const text = await response.text();
    const answers = JSON.parse(text) as { result: { isError?: boolean; structuredContent: { memories: unknown[] } } }[];
    expect(answers.map((a) => [a.result.isError ?? false, a.result.structuredContent.memories.length])).toEqual(
      Array.from({ length: 10 }, () => [false, 10]),
    );
    expect(Buffer.byteLength(text)).toBeGreaterThan(10 * 10 * 8000);
    expect(Buffer.byteLength(text)).toBeLessThan(REQUEST_LIMITS.responseBytes);
  });

  test('a call whose answer would pass what is left of the budget gets a tool error saying what to lower', async () => {
    const context = { log, budget: new ResponseBudget(1000) } as unknown as ToolContext;
    const big = await guarded(context, 'recall', async () => success({ memories: ['x'.repeat(600)] }, 'one memory'));
    expect(big.isError).toBeUndefined();
    const over = await guarded(context, 'recall', async () => success({ memories: ['y'.repeat(600)] }, 'one memory'));
    expect(over.isError).toBe(true);
    expect(JSON.stringify(over.content)).toMatch(
      /past the 1000 bytes one request may return; lower limit, or send fewer calls per batch/,
    );
    const small = await guarded(context, 'forget', async () => success({ count: 0 }, 'nothing'));
    expect(small.isError).toBeUndefined();
  });
});
