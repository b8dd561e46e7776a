import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type RunningServe, runCli, startServe } from '../support/cli.js';
import { call, connect } from '../support/endpoint.js';
import { pollUntil } from '../support/poll.js';

/**
 * Forgetting you can read while `naaba serve` runs: with a session ceiling of 3 and a TTL of 15 s,
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
writeFileSync(config, JSON.stringify({ kinds: { fact: { ceiling: 10 }, session: { ceiling: 3, ttl: '15s' } } }));
const args = ['--data', dataDir, '--config', config];
let server: RunningServe | undefined;
let client: Client | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const state = async () => (await call<State>(client as Client, 'curation_state', { page_size: 50 })).structuredContent;

beforeAll(async () => {
  const serving = await startServe(['--port', '0', ...args], { NAABA_SWEEP_EVERY_SECONDS: '2', NAABA_LOG_LEVEL: 'SILENT' });
  server = serving;
  const issued = await runCli(['issue-key', 'sweeping-agent', '--json', ...args]);
  client = await connect(`${serving.url}/mcp`, JSON.parse(issued.stdout).token);
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
  const written = Date.now();
  // The TTL is long enough that a busy machine still counts all three before the first expires.
  expect((await state()).counts.per_kind.session).toBe(3);
  await sleep(written + 16_000 - Date.now());
  // Past the TTL of the last one written: no longer counted, whether or not a sweep has run yet.
  expect((await state()).counts.per_kind.session).toBe(0);
  const lines = await pollUntil(
    async () => (await state()).journal.lines,
    (found) => found.length >= 3,
    120_000,
    500,
  );
  expect(lines.map((l) => [l.kind, l.rule])).toEqual([
    ['session', 'expiry'],
    ['session', 'expiry'],
    ['session', 'expiry'],
  ]);
  // Each line is the memory's: aged its TTL (it was never recalled), stamped when it expired.
  expect(lines.every((l) => l.age_s === 15 && l.recall_count === 0)).toBe(true);
  // A new session memory into the emptied partition evicts nothing.
  const fresh = await call<{ outcome: string; evicted: number }>(client as Client, 'remember', {
    content: 'fourth thought',
    kind: 'session',
  });
  expect(fresh.structuredContent).toMatchObject({ outcome: 'stored', evicted: 0 });
  expect((await state()).journal.lines.filter((l) => l.rule === 'ceiling')).toEqual([]);
  // The server's own sweeps removed the three, maybe over several (it sweeps every 2 s and the
  // three expired as far apart as they were written); the lines reach us after the journal does.
  const swept = (output: string) =>
    [...output.matchAll(/sweep of region local: expired session (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
  const output = await pollUntil(
    () => server?.output() ?? '',
    (o) => swept(o) >= 3,
  );
  expect(swept(output)).toBe(3);
}, 240_000);

test('`naaba sweep` works while the server holds the folder: the server runs it', async () => {
  const swept = await runCli(['sweep', ...args]);
  expect(swept.stderr).toBe('');
  expect(swept).toMatchObject({ code: 0 });
  expect(swept.stdout).toMatch(
    /^sweep of region local: expired session \d+; journal lines trimmed \d+ \(run by the server at http:\/\/127\.0\.0\.1:\d+\)$/m,
  );
}, 120_000);
