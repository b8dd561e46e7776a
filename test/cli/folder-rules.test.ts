import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { runCli, startServe } from '../support/cli.js';
import { call, connect } from '../support/endpoint.js';

/**
 * A data folder remembers its rules: `serve --config` records them in the folder, and a sweep, an
 * import or a restarted server without --config applies them; given rules that differ are refused,
 * naming the rules the folder was served with. curation_state and the banner say where the rules
 * in force came from, and which embedder.
 */

const root = mkdtempSync(join(tmpdir(), 'naaba-folder-rules-'));
const data = join(root, 'data');
const served = join(root, 'short-sessions.json');
const same = join(root, 'same-again.json');
const other = join(root, 'other.json');
const shortSessions = { kinds: { fact: { ceiling: 10 }, session: { ceiling: 5, ttl: '1s' } } };
writeFileSync(served, JSON.stringify(shortSessions));
writeFileSync(same, JSON.stringify(shortSessions));
writeFileSync(other, JSON.stringify({ kinds: { fact: { ceiling: 10 }, session: { ceiling: 5, ttl: '1h' } } }));
const env = { NAABA_SWEEP_EVERY_SECONDS: '0', NAABA_LOG_LEVEL: 'SILENT' };

interface State {
  rules: { source: string; embedder: string; kinds: Record<string, { ttl_s: number | null }> };
}

afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Serves the folder, runs `work` with an MCP client of a new key, and stops; returns the banner. */
async function serving(args: string[], work: (client: Client) => Promise<void>): Promise<string> {
  const server = await startServe(['--port', '0', '--data', data, ...args], env);
  const issued = await runCli(['issue-key', 'rules-agent', '--json', '--data', data]);
  const client = await connect(`${server.url}/mcp`, JSON.parse(issued.stdout).token);
  try {
    await work(client);
  } finally {
    await client.close();
    await server.stop();
  }
  return server.output();
}

test('serve --config records the rules; a sweep without --config applies them, other rules are refused', async () => {
  const banner = await serving(['--config', served], async (client) => {
    const state = (await call<State>(client, 'curation_state', {})).structuredContent;
    expect(state.rules.source).toBe(served);
    expect(state.rules.embedder).toMatch(/^local-lexical/);
    for (const content of ['first thought', 'second thought']) await call(client, 'remember', { content, kind: 'session' });
  });
  expect(banner).toMatch(new RegExp(`curation rules: ${served}; embedder: local-lexical`));
  expect(statSync(join(data, 'rules.json')).mode & 0o777).toBe(0o600);
  // Past the recorded TTL of 1 s: the folder's own rules expire both, the defaults (24 h) would keep them.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const refused = await runCli(['sweep', '--data', data, '--config', other]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`was served with other curation rules: ${join(data, 'rules.json')} (recorded from ${served}`);
  expect(refused.stderr).toContain(`not those of ${other}`);
  const swept = await runCli(['sweep', '--data', data]);
  expect([swept.code, swept.stdout]).toEqual([0, expect.stringContaining('expired session 2')]);
  // The same rules from another file are the same rules.
  expect((await runCli(['sweep', '--data', data, '--config', same])).code).toBe(0);
});

test('an import with other rules is refused naming the folder’s; a restarted serve without --config uses the recorded ones', async () => {
  const file = join(root, 'empty.json');
  writeFileSync(
    file,
    JSON.stringify({ format: 'naaba-memories', version: 1, exportedAt: new Date().toISOString(), memories: [], journal: [] }),
  );
  const key = JSON.parse((await runCli(['issue-key', 'importer', '--json', '--data', data])).stdout).token as string;
  const refused = await runCli(['import', file, '--data', data, '--config', other], { NAABA_KEY: key });
  expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining(`recorded from ${served}`)]);
  const banner = await serving([], async (client) => {
    const state = (await call<State>(client, 'curation_state', {})).structuredContent;
    expect(state.rules.source).toContain(`recorded from ${served}`);
    expect(state.rules.kinds.session?.ttl_s).toBe(1);
  });
  expect(banner).toContain(`curation rules: ${join(data, 'rules.json')} (recorded from ${served}`);
});

test('serving with other rules changes the folder’s rules, and says what they replace', async () => {
  const banner = await serving(['--config', other], async () => undefined);
  expect(banner).toContain(`the folder's rules change: it was served with ${served}`);
  expect(JSON.parse(readFileSync(join(data, 'rules.json'), 'utf8'))).toMatchObject({
    source: other,
    curation: { kinds: { session: { ttl: '3600s' } } },
  });
});
