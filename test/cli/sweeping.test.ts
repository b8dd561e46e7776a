import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli, type ServeProcess, startServe } from '../support/cli.js';
import { call, connect } from '../support/endpoint.js';

/**
 * Forgetting you can read while `naaba serve` runs: with a session ceiling of 3 and a TTL of 3 s,
 * an MCP client sees expired memories leave the count at once, never as ceiling evictions, and
 * their expiry lines appear without anyone running `naaba sweep` (the server sweeps on its own);
 * `naaba sweep` itself goes through the running server.
 */

interface JournalLine {
  at: string;
  kind: string;
  rule: string;
  age_s: number;
  recall_count: number;
}
interface State {
  counts: { per_kind: Record<string, number> };
  journal: { lines: JournalLine[] };
}

const dataDir = mkdtempSync(join(tmpdir(), 'naaba-sweeping-'));
const config = join(dataDir, 'curation.json');
writeFileSync(config, JSON.stringify({ kinds: { fact: { ceiling: 10 }, session: { ceiling: 3, ttl: '3s' } } }));
const args = ['--data', dataDir, '--config', config];
let server: ServeProcess | undefined;
let client: Client | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const state = async () => (await call<State>(client as Client, 'curation_state', { page_size: 50 })).structuredContent;

beforeAll(async () => {
  server = await startServe(['--port', '0', ...args], { NAABA_SWEEP_EVERY_SECONDS: '2', NAABA_LOG_LEVEL: 'SILENT' });
  const issued = await runCli(['issue-key', 'sweeping-agent', '--json', ...args]);
  client = await connect(`${server.url}/mcp`, JSON.parse(issued.stdout).token);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('expired session memories leave the count at once and the journal as expiry, swept by the running server', async () => {
  for (const content of ['first thought', 'second thought', 'third thought']) {
    await call(client as Client, 'remember', { content, kind: 'session' });
  }
  expect((await state()).counts.per_kind.session).toBe(3);
  await sleep(4_000);
  // Past the TTL: no longer counted, whether or not a sweep has run yet.
  expect((await state()).counts.per_kind.session).toBe(0);
  let lines: JournalLine[] = [];
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    lines = (await state()).journal.lines;
    if (lines.length >= 3) break;
    await sleep(500);
  }
  expect(lines.map((l) => [l.kind, l.rule])).toEqual([
    ['session', 'expiry'],
    ['session', 'expiry'],
    ['session', 'expiry'],
  ]);
  // Each line is the memory's: aged its TTL (it was never recalled), stamped when it expired.
  expect(lines.every((l) => l.age_s === 3 && l.recall_count === 0)).toBe(true);
  // A new session memory into the emptied partition evicts nothing.
  const fresh = await call<{ outcome: string; evicted: number }>(client as Client, 'remember', {
    content: 'fourth thought',
    kind: 'session',
  });
  expect(fresh.structuredContent).toMatchObject({ outcome: 'stored', evicted: 0 });
  expect((await state()).journal.lines.filter((l) => l.rule === 'ceiling')).toEqual([]);
  expect(server?.output()).toMatch(/sweep of region local: expired session 3/);
}, 180_000);

test('`naaba sweep` works while the server holds the folder: the server runs it', async () => {
  const swept = await runCli(['sweep', ...args]);
  expect(swept.stderr).toBe('');
  expect(swept).toMatchObject({ code: 0 });
  expect(swept.stdout).toMatch(
    /^sweep of region local: expired session \d+; journal lines trimmed \d+ \(run by the server at http:\/\/127\.0\.0\.1:\d+\)$/m,
  );
}, 120_000);
