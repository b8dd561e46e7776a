import { param, sql, verbatim } from '../../lambda/adapters/pg/sql/template.js';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { freshDatabase } from '../support/database.js';
import { call, connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

/**
 * Residency on the local engine (DESIGN §1, §7): every row a key writes carries the key's region,
 * the column that is the row's home on CockroachDB (REGIONAL BY ROW AS region); an endpoint serves
 * only its own region's keys; forgetting everything removes one user's rows and nothing else.
 * Both regional endpoints share one database, as the regions of one cluster do.
 */
const A = 'eu-central-1';
const B = 'us-east-1';
// A ceiling of 2 makes the third fact evict one, so every user also gets a journal line.
const CURATION = JSON.stringify({ kinds: { fact: { ceiling: 2 }, note: { ceiling: 50 } } });

let db: PgliteSqlClient;
let endpoint: TestEndpoint | undefined;
const keys: Record<'alice' | 'bob' | 'carol', IssuedKey | undefined> = { alice: undefined, bob: undefined, carol: undefined };

/** Serves one region at a time: the exported handlers use one process-wide container. */
async function serve(region: string): Promise<TestEndpoint> {
  await endpoint?.close();
  endpoint = await startTestEndpoint({ env: { NAABA_REGION: region, NAABA_CURATION: CURATION }, sql: db });
  return endpoint;
}

async function rememberFacts(at: TestEndpoint, key: IssuedKey, who: string): Promise<void> {
  const client = await connect(at.mcpUrl, key.token);
  for (const fact of ['likes green tea', 'lives near the river', 'plays the kora']) {
    await call(client, 'remember', { content: `${who} ${fact}.`, kind: 'fact' });
  }
  await call(client, 'remember', { content: `${who} keeps notes in a blue book.`, kind: 'note' });
  await client.close();
}

const key = (name: keyof typeof keys) => {
  const found = keys[name];
  if (!found) throw new Error(`${name} has no key yet`);
  return found;
};

/** Rows per user and region, in memories and journal. */
async function homes(table: 'memories' | 'journal'): Promise<Record<string, string[]>> {
  const rows = await db.query<{ user_id: string; region: string }>(
    sql`SELECT DISTINCT user_id::text AS user_id, region FROM ${verbatim(table)} ORDER BY 1, 2`,
  );
  const byUser: Record<string, string[]> = {};
  for (const row of rows) byUser[row.user_id] = [...(byUser[row.user_id] ?? []), row.region];
  return byUser;
}

const countOf = async (table: string, userId: string) =>
  (
    await db.query<{ n: number }>(
      sql`SELECT count(*)::int4 AS n FROM ${verbatim(table)} WHERE user_id = ${param('userId', userId)}::uuid`,
    )
  )[0]?.n ?? -1;

beforeAll(async () => {
  db = await freshDatabase();
  const inA = await serve(A);
  keys.alice = await inA.issueKey('alice-agent', A);
  keys.bob = await inA.issueKey('bob-agent', A);
  await rememberFacts(inA, key('alice'), 'Alice');
  await rememberFacts(inA, key('bob'), 'Bob');
  const inB = await serve(B);
  keys.carol = await inB.issueKey('carol-agent', B);
  await rememberFacts(inB, key('carol'), 'Carol');
});
afterAll(async () => {
  await endpoint?.close();
  await db.close();
});

test('every memory and journal line carries the region of the key that wrote it', async () => {
  const expected = { [key('alice').userId]: [A], [key('bob').userId]: [A], [key('carol').userId]: [B] };
  expect(await homes('memories')).toEqual(expected);
  expect(await homes('journal')).toEqual(expected);
  for (const name of ['alice', 'bob', 'carol'] as const) {
    expect(await countOf('memories', key(name).userId)).toBe(3);
    expect(await countOf('journal', key(name).userId)).toBe(1);
  }
});

test('an endpoint serving another region refuses the key with 403 naming the key’s region', async () => {
  const inB = await serve(B);
  const response = await fetch(inB.mcpUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key('alice').token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'residency-test', version: '1' } },
    }),
  });
  expect(response.status).toBe(403);
  expect(((await response.json()) as { message: string }).message).toContain(A);
  // Refused before any tool ran: nothing was written anywhere for Alice in B.
  expect((await homes('memories'))[key('alice').userId]).toEqual([A]);
});

test('forgetting everything removes that user’s rows and journal lines only', async () => {
  const inA = await serve(A);
  const alice = await connect(inA.mcpUrl, key('alice').token);
  const forgot = await call<{ count: number; journal_lines_removed: number }>(alice, 'forget', { all: true });
  await alice.close();
  expect(forgot.structuredContent).toMatchObject({ count: 3, journal_lines_removed: 1 });
  expect(await countOf('memories', key('alice').userId)).toBe(0);
  expect(await countOf('journal', key('alice').userId)).toBe(0);
  for (const other of ['bob', 'carol'] as const) {
    expect(await countOf('memories', key(other).userId)).toBe(3);
    expect(await countOf('journal', key(other).userId)).toBe(1);
  }
  expect(await homes('memories')).toEqual({ [key('bob').userId]: [A], [key('carol').userId]: [B] });
});
