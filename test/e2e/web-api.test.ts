import { sql } from '../../lambda/adapters/pg/sql/template.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { PageMemory } from '../../lambda/page/contract.js';
import { PAGE_CSP } from '../../lambda/page/files.js';
import { call, connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';

/**
 * The memory page's data API over the real local server: the same authorizer as /mcp, the same
 * memories as MCP sees, and looking is not recalling.
 */

interface ApiMemory {
  id: string;
  content: string;
  recallCount: number;
  lastUsefulAt: string;
}

let endpoint: TestEndpoint;
let mcp: Client;
let token: string;

const api = async (path: string, init: RequestInit & { token?: string } = {}) => {
  const bearer = init.token ?? token;
  const response = await fetch(`${endpoint.url}${path}`, {
    ...init,
    headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
};

/** Every memory's usefulness as the database holds it. */
const usefulness = async () =>
  endpoint.sql.query<{ id: string; recall_count: number; last_useful_at: Date }>(
    sql`SELECT id::text AS id, recall_count, last_useful_at FROM memories ORDER BY id`,
  );

beforeAll(async () => {
  endpoint = await startTestEndpoint();
  token = (await endpoint.issueKey('page-owner')).token;
  mcp = await connect(endpoint.mcpUrl, token);
  for (const content of ['The boat is moored at pier 7.', 'Lunch is at noon on Fridays.', 'The locker code is 4417.']) {
    await call(mcp, 'remember', { content, kind: 'fact' });
  }
  await call(mcp, 'remember', { content: 'Prefers tea to coffee.', kind: 'preference', pinned: true });
  await call(mcp, 'remember', { content: 'Reviewing the pier 7 contract today.', kind: 'session' });
});
afterAll(async () => {
  await mcp.close();
  await endpoint.close();
});

test('the overview counts what curation_state counts', async () => {
  const state = await call<{ counts: { per_kind: Record<string, number>; pinned: number } }>(mcp, 'curation_state', {});
  const { status, headers, body } = await api('/api/overview');

  expect(status).toBe(200);
  expect(headers.get('cache-control')).toBe('no-store');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('access-control-allow-origin')).toBeNull();
  const kinds = body.kinds as { kind: string; count: number; pinned: number; ttlSeconds: number | null }[];
  expect(Object.fromEntries(kinds.map((k) => [k.kind, k.count]))).toEqual(state.structuredContent.counts.per_kind);
  expect(body.pinned).toBe(state.structuredContent.counts.pinned);
  expect(kinds.find((k) => k.kind === 'preference')?.pinned).toBe(1);
  expect(kinds.find((k) => k.kind === 'session')?.ttlSeconds).toBe(86_400);
});

test('browsing, searching, the journal and next to go leave every recall_count and last_useful_at unchanged', async () => {
  const before = await usefulness();

  const listed = await api('/api/memories?kind=fact&limit=2');
  const rest = await api(`/api/memories?kind=fact&cursor=${listed.body.nextCursor as string}`);
  const found = await api('/api/search?q=pier%207&limit=5');
  for (const path of ['/api/memories', '/api/journal', '/api/journal/daily?days=7', '/api/next?limit=3']) {
    expect((await api(path)).status).toBe(200);
  }

  expect(await usefulness()).toEqual(before);
  const contents = [...(listed.body.memories as ApiMemory[]), ...(rest.body.memories as ApiMemory[])].map((m) => m.content);
  expect(contents).toEqual(['The locker code is 4417.', 'Lunch is at noon on Fridays.', 'The boat is moored at pier 7.']);
  expect(rest.body.nextCursor).toBeNull();
  const hits = found.body.memories as (ApiMemory & { score: number })[];
  expect(hits[0]?.content).toMatch(/pier 7/);
  expect(hits.every((m) => m.score > 0 && m.recallCount === 0)).toBe(true);
});

test('search ranks as recall does', async () => {
  const found = await api('/api/search?q=pier%207%20contract&kinds=fact,session&limit=5');
  const recalled = await call<{ memories: { id: string }[] }>(mcp, 'recall', {
    query: 'pier 7 contract',
    kinds: ['fact', 'session'],
    limit: 5,
  });

  expect((found.body.memories as ApiMemory[]).map((m) => m.id)).toEqual(recalled.structuredContent.memories.map((m) => m.id));
});

test('search keeps what the listing’s filters keep, and each memory carries what the policy says of it', async () => {
  const all = (await api('/api/search?q=pier%207%20contract%20tea&limit=10')).body.memories as PageMemory[];
  const pinned = (await api('/api/search?q=pier%207%20contract%20tea&limit=10&pinned=true')).body.memories as PageMemory[];
  const listed = (await api('/api/memories?pinned=true')).body.memories as PageMemory[];

  expect(all.some((m) => !m.pinned)).toBe(true);
  expect(pinned.map((m) => m.id)).toEqual(all.filter((m) => m.pinned).map((m) => m.id));
  expect(pinned.every((m) => listed.some((l) => l.id === m.id))).toBe(true);
  const session = all.find((m) => m.kind === 'session');
  const expected = new Date(Date.parse(session?.lastUsefulAt ?? '') + 24 * 3600_000).toISOString();
  expect(session?.outlook).toEqual({
    expiresAt: expected,
    expiresIfUnpinned: null,
    unpinExpiresAtOnce: false,
    pin: { allowed: true, refusal: null, reason: null },
  });
  expect(all.find((m) => m.pinned)?.outlook.expiresAt).toBeNull();
  expect((await api('/api/search?q=pier&pinned=maybe')).status).toBe(400);
});

test('next to go lists the least recently useful unpinned memories first, and when a session memory expires', async () => {
  const { body } = await api('/api/next?limit=5');
  const kinds = body.kinds as {
    kind: string;
    evictNext: ApiMemory[];
    expiringNext: { content: string; expiresAt: string }[];
  }[];
  const fact = kinds.find((k) => k.kind === 'fact');
  const session = kinds.find((k) => k.kind === 'session');

  const order = fact?.evictNext.map((m) => m.lastUsefulAt) ?? [];
  expect(order).toEqual([...order].sort());
  expect(kinds.find((k) => k.kind === 'preference')?.evictNext).toEqual([]);
  expect(session?.expiringNext.map((m) => m.content)).toEqual(['Reviewing the pier 7 contract today.']);
  expect(fact?.expiringNext).toEqual([]);
});

test('forget through the API removes exactly that memory, as MCP recall sees', async () => {
  const { body } = await api('/api/memories?kind=fact');
  const [victim, ...others] = body.memories as ApiMemory[];

  const gone = await api(`/api/memories/${victim?.id}`, { method: 'DELETE' });
  const recalled = await call<{ memories: { id: string }[] }>(mcp, 'recall', {
    query: 'pier lunch locker',
    kinds: ['fact'],
    limit: 10,
  });

  expect(gone.body).toEqual({ deleted: [victim?.id], count: 1 });
  expect(recalled.structuredContent.memories.map((m) => m.id).sort()).toEqual(others.map((m) => m.id).sort());
});

test('a second key sees nothing of the first, and cannot forget it', async () => {
  const other = (await endpoint.issueKey('someone-else')).token;
  const mine = (await api('/api/memories')).body.memories as ApiMemory[];

  expect((await api('/api/memories', { token: other })).body.memories).toEqual([]);
  expect((await api('/api/search?q=pier', { token: other })).body.memories).toEqual([]);
  expect((await api(`/api/memories/${mine[0]?.id}`, { token: other, method: 'DELETE' })).body).toEqual({ deleted: [], count: 0 });
  expect((await api('/api/memories?all=true', { token: other, method: 'DELETE' })).body).toEqual({
    count: 0,
    journalLinesRemoved: 0,
  });
  expect((await api('/api/memories')).body.memories).toHaveLength(mine.length);
});

test.each([
  ['no token', '/api/overview', 'GET', '', 401],
  ['an unknown token', '/api/overview', 'GET', `nb_${'A'.repeat(43)}`, 401],
  ['an unknown kind', '/api/memories?kind=nope', 'GET', undefined, 400],
  ['a limit past the maximum', '/api/memories?limit=101', 'GET', undefined, 400],
  ['a crafted cursor', '/api/memories?cursor=abc', 'GET', undefined, 400],
  ['days past the maximum', '/api/journal/daily?days=91', 'GET', undefined, 400],
  ['a forget without a target', '/api/memories', 'DELETE', undefined, 400],
  ['an id that is no UUID', '/api/memories/42', 'DELETE', undefined, 400],
  ['an id with a malformed escape', '/api/memories/%E0', 'DELETE', undefined, 400],
  ['an unknown route', '/api/nothing', 'GET', undefined, 404],
  ['a path outside the API', '/nothing', 'GET', undefined, 404],
])('%s', async (_name, path, method, bearer, status) => {
  const answer = await api(path, { method, token: bearer });

  expect(answer.status).toBe(status);
  if (status === 400) expect(typeof answer.body.error).toBe('string');
  if (status === 401) expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="/);
});

test("another region's key gets 403 naming its region", async () => {
  const foreign = (await endpoint.issueKey('traveller', 'us-east-1')).token;

  const answer = await api('/api/overview', { token: foreign });

  expect(answer.status).toBe(403);
  expect(answer.body.message).toMatch(/us-east-1/);
});

test('GET / serves the page with a strict CSP, sniffing off and no referrer', async () => {
  const page = await fetch(`${endpoint.url}/`);

  expect(page.status).toBe(200);
  expect(page.headers.get('content-security-policy')).toBe(PAGE_CSP);
  expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  expect(page.headers.get('referrer-policy')).toBe('no-referrer');
  expect(await page.text()).toMatch(/<html/i);
});
