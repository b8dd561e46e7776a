import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBinary, runCli, startNpmStart } from '../support/cli.js';
import { pollUntil } from '../support/poll.js';

const dir = mkdtempSync(join(tmpdir(), 'naaba-cmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('check shows what is in force and where it came from, connecting to nothing', async () => {
  const result = await runCli(['check', '--port', '9100'], {
    NAABA_REGION: 'eu-central-1',
    NAABA_DATA_DIR: join(dir, 'never-created'),
  });
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/NAABA_PORT\s+9100\s+\[flag\]/);
  expect(result.stdout).toMatch(/NAABA_REGION\s+eu-central-1\s+\[env\]/);
  expect(result.stdout).toMatch(/NAABA_EMBEDDER\s+local\s+\[default\]/);
  expect(result.stdout).toContain('embedded PGlite');
  expect(result.stdout).toContain('no problems found');
});

test('check names what is missing or wrong, and exits 1', async () => {
  const result = await runCli(['check'], { NAABA_EMBEDDER: 'openai', NAABA_PORT: 'eighty' });
  expect(result.code).toBe(1);
  expect(result.stdout).toContain('NAABA_OPENAI_BASE_URL is required');
  expect(result.stdout).toContain('NAABA_PORT="eighty"');
});

test('an invalid curation config stops start-up naming the bad field', async () => {
  const file = join(dir, 'curation.json');
  writeFileSync(file, JSON.stringify({ kinds: { fact: { ceiling: 0 }, session: { ceiling: 5, ttl: 'tomorrow' } } }));
  const result = await runCli(['serve', '--config', file, '--data', join(dir, 'data')]);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('kinds.fact.ceiling');
  expect(result.stderr).toContain('kinds.session.ttl');
});

test('embed shows provider, dimension and norm', async () => {
  const result = await runCli(['embed', 'Le siège est à Ouagadougou.']);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/provider\s+local-lexical-v2\/256/);
  expect(result.stdout).toMatch(/dimension\s+256/);
  expect(result.stdout).toMatch(/norm\s+1\.000000/);
});

test('migrate creates the schema once, then reports it up to date', async () => {
  const data = ['--data', join(dir, 'migrated')];
  const first = await runCli(['migrate', ...data]);
  const second = await runCli(['migrate', ...data]);
  expect(first.code).toBe(0);
  expect(second.stdout).toContain('schema is up to date');
});

test('the binary: --help prints the usage and exits 0; an unknown command exits 2 with the usage on standard error', async () => {
  const help = await runBinary(['--help']);
  expect(help).toMatchObject({ code: 0, stderr: '' });
  expect(help.stdout).toContain('usage:\n  naaba serve');
  const unknown = await runBinary(['frobnicate']);
  expect(unknown.code).toBe(2);
  expect(unknown.stdout).toBe('');
  expect(unknown.stderr).toContain('naaba: unknown command "frobnicate"');
  expect(unknown.stderr).toContain('usage:\n  naaba serve');
});

test('an unknown command or option is a usage error', async () => {
  expect(await runCli(['frobnicate'])).toMatchObject({ code: 2 });
  expect((await runCli(['serve', '--colour', 'red'])).stderr).toContain('unknown option --colour');
});

test('sweep reports what it expired and trimmed', async () => {
  const result = await runCli(['sweep', '--data', join(dir, 'swept')]);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/sweep of region local: expired session 0; journal lines trimmed 0/);
});

test('serve refuses an embedder whose dimension differs from the data folder’s schema, and says how to move', async () => {
  const data = join(dir, 'dims');
  expect((await runCli(['migrate', '--data', data])).code).toBe(0);
  const result = await runCli(['serve', '--data', data, '--port', '0'], { NAABA_EMBEDDING_DIMENSIONS: '128' });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(
    'embedding dimension mismatch between the schema and embedder local-lexical-v2/128: the schema stores 256 dimensions, the embedder makes 128. Run `naaba reembed`',
  );
});

test('npm start serves the local endpoint, migrated on first start, and says how to get a key', async () => {
  const data = join(dir, 'npm-start');
  const server = await startNpmStart(['--port', '0', '--data', data], fileURLToPath(new URL('../..', import.meta.url)));
  try {
    expect(server.output()).toMatch(/MCP endpoint for your client: http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok', region: 'local' });
    // The hint follows the listening line on its own time: wait for it rather than a fixed 500 ms.
    expect(await pollUntil(server.output, (output) => output.includes('npx naaba issue-key'))).toContain('npx naaba issue-key');
  } finally {
    await server.stop();
  }
  expect(existsSync(join(data, 'pgdata'))).toBe(true);
  expect(existsSync(join(data, 'naaba.lock'))).toBe(false);
});
