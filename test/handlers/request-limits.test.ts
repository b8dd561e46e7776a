import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { REQUEST_LIMITS, serveMcp } from '../../lambda/mcp/serve.js';
import { freshDatabase } from '../support/database.js';
import { principal, serviceOver } from '../support/memory.js';

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
      query: async (text, params) => {
        await this.gate;
        return this.real.query(text, params);
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

test('one key may have at most 4 requests in progress; the next is 429 with Retry-After, another key is not held up', async () => {
  const db = await freshDatabase();
  const gated = new GatedSql(db);
  const { service } = serviceOver(gated.asClient() as PgliteSqlClient);
  const busyKey = principal();
  const held = Array.from({ length: REQUEST_LIMITS.concurrentPerKey }, () => serveMcp(recall(), busyKey, service, log));
  await new Promise((resolve) => setTimeout(resolve, 50));

  const refused = await serveMcp(recall(), busyKey, service, log);
  expect(refused.status).toBe(429);
  expect(refused.headers.get('retry-after')).toBe('1');
  expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/at most 4/);
  const other = serveMcp(recall(), principal(), service, log);

  gated.release();
  expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200, 200, 200]);
  expect((await other).status).toBe(200);
  expect((await serveMcp(recall(), busyKey, service, log)).status).toBe(200);
  await db.close();
});
