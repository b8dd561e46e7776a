import { resolve } from 'node:path';
import { sql } from '../../lambda/adapters/pg/sql/template.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

/**
 * The page's calls that keep, compare, filter and move memories, over the real local server: a
 * pin within the limit that changes no usefulness, the other side of a conflict read by id and by
 * its owner only, filters and totals, the hourly journal, an export in pages, an import that is
 * all or nothing, and bad input refused with a clear error.
 */

let endpoint: TestEndpoint;
let mcp: Client;
let token: string;
let owner: string;
let stranger: string;

const api = async (path: string, init: RequestInit & { token?: string } = {}) => {
  const response = await fetch(`${endpoint.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${init.token ?? token}`, 'content-type': 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};
const usefulness = () => endpoint.sql.query(sql`SELECT id, recall_count, last_useful_at FROM memories ORDER BY id`);
const idOf = async (content: string) =>
  ((await api('/api/memories')).body.memories as { id: string; content: string }[]).find((m) => m.content === content)?.id ?? '';

beforeAll(async () => {
  endpoint = await startTestEndpoint({
    env: { NAABA_CURATION: JSON.stringify({ kinds: { fact: { ceiling: 10 } }, pin_limit: 1 }) },
  });
  ({ token, userId: owner } = await endpoint.issueKey('page-owner'));
  stranger = (await endpoint.issueKey('stranger')).token;
  mcp = await connect(endpoint.mcpUrl, token, { name: 'tests', version: '1' });
  for (const [content, origin] of [
    ['The boat is moored at pier 7.', 'harbour notes'],
    ['Lunch is at noon on Fridays.', 'team chat'],
    ['The locker code is 4417.', null],
  ] as const) {
    await call(mcp, 'remember', { content, kind: 'fact', ...(origin ? { origin } : {}) });
  }
});
afterAll(async () => {
  await mcp.close();
  await endpoint.close();
});

test('a pin from the page holds the pin limit and changes no usefulness; unpin frees the place', async () => {
  const before = await usefulness();
  const boat = await idOf('The boat is moored at pier 7.');
  const lunch = await idOf('Lunch is at noon on Fridays.');
  expect((await api(`/api/memories/${boat}/pin`, { method: 'PUT' })).body).toEqual({ id: boat, pinned: true, changed: true });
  expect((await api(`/api/memories/${boat}/pin`, { method: 'PUT' })).body).toEqual({ id: boat, pinned: true, changed: false });
  const refused = await api(`/api/memories/${lunch}/pin`, { method: 'PUT' });
  expect([refused.status, refused.body.error]).toEqual([400, expect.stringContaining('pin limit reached (1 pinned memories)')]);
  expect(await usefulness()).toEqual(before);
  expect((await api(`/api/memories/${boat}/pin`, { method: 'DELETE' })).body).toMatchObject({ pinned: false, changed: true });
  expect((await api(`/api/memories/${lunch}/pin`, { method: 'PUT' })).status).toBe(200);
  const state = await call<{ counts: { pinned: number } }>(mcp, 'curation_state', {});
  expect(state.structuredContent.counts.pinned).toBe(1);
});

test('one memory by id is its owner’s only; for anyone else it does not exist, and cannot be pinned', async () => {
  const boat = await idOf('The boat is moored at pier 7.');
  const mine = await api(`/api/memories/${boat}`);
  expect((mine.body.memory as { content: string }).content).toBe('The boat is moored at pier 7.');
  const theirs = await api(`/api/memories/${boat}`, { token: stranger });
  expect(theirs.status).toBe(404);
  expect(JSON.stringify(theirs.body)).not.toContain('pier');
  expect((await api(`/api/memories/${boat}/pin`, { method: 'PUT', token: stranger })).status).toBe(404);
  expect((await api(`/api/memories/${crypto.randomUUID()}`)).status).toBe(404);
});

test('filters, orders and totals; who wrote what', async () => {
  const pinned = await api('/api/memories?pinned=true');
  expect([(pinned.body.memories as unknown[]).length, pinned.body.total]).toEqual([1, 1]);
  const harbour = await api('/api/memories?origin=HARBOUR&order=recalls');
  expect((harbour.body.memories as { content: string }[]).map((m) => m.content)).toEqual(['The boat is moored at pier 7.']);
  const paged = await api('/api/memories?limit=2&order=last_useful');
  expect([paged.body.total, (paged.body.memories as unknown[]).length, typeof paged.body.nextCursor]).toEqual([3, 2, 'string']);
  expect((await api('/api/writers')).body.writers).toEqual([{ agent: 'page-owner', client: 'tests/1', memories: 3 }]);
});

test('the journal by hour covers the last 24 hours, oldest first', async () => {
  const { body } = await api('/api/journal/hourly');
  const hours = body.hours as { hour: string }[];
  expect(hours).toHaveLength(24);
  expect(hours.map((h) => h.hour)).toEqual([...hours.map((h) => h.hour)].sort());
  expect(Date.parse(hours.at(-1)?.hour ?? '')).toBeLessThanOrEqual(Date.now());
});

test('an export in pages, then the same file imported by another key: all or nothing, and looking changes nothing', async () => {
  const before = await usefulness();
  const memories = (await api('/api/export/memories')).body;
  const journal = (await api('/api/export/journal')).body;
  expect(await usefulness()).toEqual(before);
  expect([memories.nextCursor, journal.nextCursor]).toEqual([null, null]);
  const file = {
    format: 'naaba-memories',
    version: 1,
    exportedAt: new Date().toISOString(),
    memories: memories.memories,
    journal: journal.lines,
  };
  const imported = await api('/api/import', { method: 'POST', body: JSON.stringify(file), token: stranger });
  expect(imported.body.imported).toMatchObject({ memories: 3, written: 3, alreadyPresent: 0 });
  // A second pin would pass the stranger's limit of one: the whole file is refused, nothing more is written.
  const two = structuredClone(file) as { memories: { pinned: boolean }[] };
  for (const m of two.memories) m.pinned = true;
  const other = (await endpoint.issueKey('third-user')).token;
  const refused = await api('/api/import', { method: 'POST', body: JSON.stringify(two), token: other });
  expect([refused.status, refused.body.error]).toEqual([400, expect.stringContaining('over the pin limit of 1')]);
  expect((await api('/api/memories', { token: other })).body.total).toBe(0);
});

const yearZero = {
  id: '6f1d0b7e-3c1a-4f57-9a55-0d1e2f3a4b5c',
  kind: 'fact',
  content: 'A memory from before the calendar.',
  pinned: false,
  createdAt: '0000-01-01T00:00:00Z',
  lastUsefulAt: '2026-01-01T00:00:00Z',
  recallCount: 0,
  restatements: 1,
  agent: 'a',
  client: 'c',
  origin: null,
};

test.each([
  ['a body that is not JSON', '{', /not JSON/],
  ['another format', JSON.stringify({ format: 'x', version: 1 }), /format must be "naaba-memories"/],
  [
    'an unknown kind',
    JSON.stringify({ format: 'naaba-memories', version: 1, exportedAt: '2026-01-01T00:00:00Z', memories: [{ kind: 'nope' }] }),
    /memories\[0\]/,
  ],
  [
    'a memory created in year 0000',
    JSON.stringify({
      format: 'naaba-memories',
      version: 1,
      exportedAt: '2026-01-01T00:00:00Z',
      memories: [yearZero],
      journal: [],
    }),
    /memories\[0\]\.createdAt must be a time from 1970 to 9999/,
  ],
  [
    'a kind named after a prototype property',
    JSON.stringify({
      format: 'naaba-memories',
      version: 1,
      exportedAt: '2026-01-01T00:00:00Z',
      memories: [{ ...yearZero, createdAt: '2026-01-01T00:00:00Z', kind: 'constructor' }],
      journal: [],
    }),
    /memories\[0\]\.kind is "constructor"/,
  ],
])('an import of %s is refused and writes nothing', async (_name, body, message) => {
  const count = async () => (await endpoint.sql.query(sql`SELECT 1 FROM memories`)).length;
  const before = await count();
  const answer = await api('/api/import', { method: 'POST', body, token: stranger });
  expect(answer.status).toBe(400);
  expect(answer.body.error).toMatch(message);
  expect(await count()).toBe(before);
});

test('connect lines name the URL the page gives, and never a key; a URL that is not http(s) is refused', async () => {
  const url = `${endpoint.url}/mcp`;
  const { body } = await api(`/api/connect?url=${encodeURIComponent(url)}`);
  const clients = body.clients as { client: string; text: string; command: string }[];
  expect(clients.map((c) => c.client)).toEqual(['claude-code', 'cursor', 'vscode', 'json']);
  for (const c of clients) {
    expect(c.text).toContain(url);
    expect(c.text).not.toContain(token);
    expect(c.command).not.toContain(token);
  }
  // The terminal line joins the signed-in user, in this server's data folder (decision 0111).
  const folder = resolve('.naaba');
  expect(Object.fromEntries(clients.map((c) => [c.client, c.command]))).toEqual({
    'claude-code': `npx naaba connect claude-code --issue claude-code --user ${owner} --data ${folder} --write`,
    cursor: `npx naaba connect cursor --issue cursor --user ${owner} --data ${folder} --write`,
    vscode: `npx naaba connect vscode --data ${folder} --write`,
    json: `npx naaba connect json --issue my-agent --user ${owner} --data ${folder}`,
  });
  expect((await api('/api/connect?url=javascript:alert(1)')).status).toBe(400);
});
