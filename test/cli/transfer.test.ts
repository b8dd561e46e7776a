import { sql, param } from '../../lambda/adapters/pg/sql/template.js';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IssuedKey } from '../../lambda/auth/keys.js';
import type { MemoryJson } from '../../lambda/memory/memory-json.js';
import type { TransferDocument } from '../../lambda/memory/transfer/transfer-file.js';
import { ManualClock } from '../support/clock.js';
import { runCli } from '../support/cli.js';
import { call, connect, startTestEndpoint, type TestEndpoint } from '../support/endpoint.js';
import { ScriptedJudge } from '../support/judges.js';

/**
 * `naaba export` and `naaba import` as a user runs them, against a running endpoint (with a key)
 * and straight into a local data folder: nothing a memory carries is lost, the key decides whose
 * memory it is, a second import adds nothing, and a file that would pass a limit or holds one bad
 * field changes nothing.
 */

const dir = mkdtempSync(join(tmpdir(), 'naaba-transfer-'));
const file = (name: string) => join(dir, name);
const CURATION = JSON.stringify({
  kinds: { fact: { ceiling: 4 }, preference: { ceiling: 5 }, session: { ceiling: 1, ttl: '24h' } },
  pin_limit: 3,
});

let source: TestEndpoint;
let alice: IssuedKey;
let exported: TransferDocument;

/** A memory as a person would compare two copies: everything but the id, links by content. */
function comparable(doc: TransferDocument) {
  const content = new Map(doc.memories.map((m) => [m.id, m.content]));
  return {
    memories: doc.memories
      .map(({ id: _id, conflicts, supersededBy, ...m }) => ({
        ...m,
        conflicts: conflicts.map((c) => content.get(c)).sort(),
        supersededBy: supersededBy === null ? null : content.get(supersededBy),
      }))
      .sort((a, b) => a.content.localeCompare(b.content)),
    journal: [...doc.journal].sort((a, b) => a.at.localeCompare(b.at) || a.kind.localeCompare(b.kind)),
  };
}

const cli = (args: string[], key: string, env: Record<string, string> = {}) => runCli(args, { NAABA_KEY: key, ...env });
const endpointFlag = () => ['--endpoint', `${source.url}/mcp`];

beforeAll(async () => {
  const clock = new ManualClock(Date.now() - 3 * 3600_000);
  const judge = new ScriptedJudge((a, b) => (a.includes('standup') && b.includes('standup') ? 'contradicts' : 'different'));
  source = await startTestEndpoint({ clock, judge, env: { NAABA_CURATION: CURATION } });
  alice = await source.issueKey('alice-laptop');
  const mcp = await connect(source.mcpUrl, alice.token, { name: 'claude-code', version: '2.1.4' });
  const remember = async (content: string, kind: string, extra: Record<string, unknown> = {}) => {
    await call(mcp, 'remember', { content, kind, ...extra });
    clock.advance(120);
  };
  await remember('The standup is at 9:30.', 'fact', { origin: 'calendar' });
  await remember('The standup moved to 10:00.', 'fact', { origin: 'email from Kofi', pinned: true });
  await remember('The ferry to Lamu leaves at nine.', 'fact');
  await remember('the ferry to lamu leaves at NINE', 'fact', { origin: 'a second chat' });
  await remember('Amina prefers tea without sugar.', 'preference', { pinned: true });
  await remember('Pairing with Kofi until lunch.', 'session');
  await remember('Reviewing PR #1842 this afternoon.', 'session');
  await remember('Invoices are due on the fifth.', 'fact');
  await call(mcp, 'recall', { query: 'ferry Lamu', limit: 1 });
  await mcp.close();
});
afterAll(async () => {
  await source?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('export through an endpoint writes every memory and journal line to an owner-only file, changing no usefulness', async () => {
  const before = await source.sql.query(sql`SELECT id, recall_count, last_useful_at FROM memories ORDER BY id`);
  const result = await cli(['export', file('alice.json'), ...endpointFlag()], alice.token);
  expect(result.stderr).toContain('exported 6 memories and 2 journal lines');
  expect(result.code).toBe(0);
  expect(statSync(file('alice.json')).mode & 0o777).toBe(0o600);
  exported = JSON.parse(readFileSync(file('alice.json'), 'utf8'));
  expect(exported).toMatchObject({ format: 'naaba-memories', version: 1 });
  expect(await source.sql.query(sql`SELECT id, recall_count, last_useful_at FROM memories ORDER BY id`)).toEqual(before);
  const ferry = exported.memories.find((m) => m.content.startsWith('The ferry')) as MemoryJson;
  expect(ferry).toMatchObject({
    kind: 'fact',
    recallCount: 1,
    restatements: 2,
    agent: 'alice-laptop',
    client: 'claude-code/2.1.4',
  });
  expect(ferry.restatedBy.map((s) => s.origin)).toEqual(['a second chat']);
  const moved = exported.memories.find((m) => m.content.includes('10:00')) as MemoryJson;
  expect(moved.pinned).toBe(true);
  expect(moved.conflicts).toEqual([exported.memories.find((m) => m.content.includes('9:30'))?.id]);
  expect(exported.journal.map((l) => l.rule).sort()).toEqual(['ceiling', 'duplicate']);
  expect(JSON.stringify(exported)).not.toMatch(/user_?id|region/i);
});

test('import into a local data folder (no server): the same memories, links and journal, under the new key’s user', async () => {
  const folder = mkdtempSync(join(dir, 'laptop-b-'));
  const key = JSON.parse((await runCli(['issue-key', 'bob-desktop', '--data', folder, '--json'])).stdout) as IssuedKey;
  const imported = await cli(['import', file('alice.json'), '--data', folder], key.token);
  expect(imported.stdout).toContain(
    '6 memories written, 0 already there, 0 expired before the import (not written), 2 conflict links, 2 journal lines',
  );
  expect(imported.code).toBe(0);
  const back = await cli(['export', file('bob.json'), '--data', folder], key.token);
  expect(back.code).toBe(0);
  const copy = JSON.parse(readFileSync(file('bob.json'), 'utf8')) as TransferDocument;
  expect(comparable(copy)).toEqual(comparable(exported));
  const oldIds = new Set(exported.memories.map((m) => m.id));
  expect(copy.memories.filter((m) => oldIds.has(m.id))).toEqual([]);
  const again = await cli(['import', file('alice.json'), '--data', folder], key.token);
  expect(again.stdout).toContain('0 memories written, 6 already there');
  expect(again.stdout).toContain('0 journal lines');
  rmSync(folder, { recursive: true, force: true });
});

test('import through an endpoint goes to the key’s own user; the exporter’s memory is untouched', async () => {
  const carol = await source.issueKey('carol');
  const before = await source.sql.query<{ n: number }>(
    sql`SELECT count(*)::int4 AS n FROM memories WHERE user_id = ${param('value', alice.userId)}`,
  );
  const answer = await cli(['import', file('alice.json'), ...endpointFlag()], carol.token);
  expect(answer.stderr).toBe('');
  expect(answer.stdout).toContain('6 memories written');
  const counts = await source.sql.query<{ user_id: string; n: number }>(
    sql`SELECT user_id::text AS user_id, count(*)::int4 AS n FROM memories GROUP BY 1 ORDER BY 1`,
  );
  expect(counts.find((c) => c.user_id === alice.userId)?.n).toBe(before[0]?.n);
  expect(counts.find((c) => c.user_id === carol.userId)?.n).toBe(6);
});

test('an import that would pass a ceiling or the pin limit writes nothing and says by how much', async () => {
  const dave = await source.issueKey('dave');
  const mcp = await connect(source.mcpUrl, dave.token);
  await call(mcp, 'remember', { content: 'Dave already keeps this fact.', kind: 'fact' });
  await mcp.close();
  const count = async () =>
    (
      await source.sql.query<{ n: number }>(
        sql`SELECT count(*)::int4 AS n FROM memories WHERE user_id = ${param('value', dave.userId)}`,
      )
    )[0]?.n;
  const refused = await cli(['import', file('alice.json'), ...endpointFlag()], dave.token);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('nothing was imported');
  expect(refused.stderr).toContain('fact: 1 kept + 4 new would be 5, over its ceiling of 4');
  expect(await count()).toBe(1);
  const facts = await cli(['import', file('alice.json'), '--kind', 'preference', ...endpointFlag()], dave.token);
  expect(facts.stdout).toContain('1 memory written');
  expect(await count()).toBe(2);
});

test('a bad file is refused whole, naming where it is wrong', async () => {
  const eve = await source.issueKey('eve');
  const broken = structuredClone(exported) as unknown as { memories: Record<string, unknown>[] };
  (broken.memories[3] as Record<string, unknown>).content = 'nul \u0000 inside';
  writeFileSync(file('broken.json'), JSON.stringify(broken));
  writeFileSync(file('not-json.json'), '{"format": "naaba-memories", ');
  const cases: [string, RegExp][] = [
    ['broken.json', /memories\[3\]\.content contains control characters/],
    ['not-json.json', /expected the JSON file naaba export wrote/],
  ];
  for (const [name, message] of cases) {
    const result = await cli(['import', file(name), ...endpointFlag()], eve.token);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
  }
  expect((await source.sql.query(sql`SELECT 1 FROM memories WHERE user_id = ${param('value', eve.userId)}`)).length).toBe(0);
  const unknown = await cli(['export', '-', ...endpointFlag()], 'nb_0000000000000000000000000000000000000000000');
  expect(unknown.stderr).toContain('does not know this key');
  const none = await runCli(['export', '-', ...endpointFlag()], { NAABA_KEY: '' });
  expect(none.stderr).toContain('set NAABA_KEY');
});

test('a file larger than an endpoint takes is refused before sending, with what to do instead', async () => {
  const frank = await source.issueKey('frank');
  const big = {
    ...exported,
    memories: Array.from({ length: 160 }, (_, i) => ({
      ...exported.memories[0],
      id: crypto.randomUUID(),
      content: `${i} ${'x'.repeat(8000)}`,
    })),
  };
  writeFileSync(file('big.json'), JSON.stringify(big));
  const result = await cli(['import', file('big.json'), ...endpointFlag()], frank.token);
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/an endpoint takes at most 1048576 per import.*--kind KIND/);
});
