import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS } from '../../bin/cli/commands.js';
import { runCli } from '../support/cli.js';

/**
 * The command line never surprises: every subcommand answers --help and -h with its own usage and
 * does nothing else; a flag a command does not take is an error that names it; an expected failure
 * (a server gone mid-command, a folder where a file belongs) is one line, never a stack trace.
 */

const root = mkdtempSync(join(tmpdir(), 'naaba-usage-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A data folder no command may create: help and usage errors touch nothing. */
const untouched = join(root, 'never-created');
const env = { NAABA_DATA_DIR: untouched, NAABA_KEY: `nb_${'k'.repeat(43)}`, HOME: join(root, 'home') };

const names = Object.keys(COMMANDS);

test('there is a command to ask about', () => {
  expect(names).toEqual(expect.arrayContaining(['serve', 'migrate', 'sweep', 'import', 'connect']));
});

test.each(names.flatMap((name) => [[name, '--help'] as const, [name, '-h'] as const]))(
  'naaba %s %s prints its usage and does nothing else',
  async (name, flag) => {
    const result = await runCli([name, flag, '--data', untouched], env, root);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain(`usage:\n  naaba ${name}`);
    expect(existsSync(untouched)).toBe(false);
  },
);

test.each(names)('naaba %s --help says what it does and what every option it takes means', async (name) => {
  const command = COMMANDS[name];
  const { stdout } = await runCli([name, '--help'], env, root);
  const [, about = ''] = stdout.split('\n\n');
  expect(about).toMatch(/^[A-Z][^\n]{20,}\.$/);
  for (const option of [...(command?.values ?? []), ...(command?.switches ?? [])])
    expect(stdout).toMatch(new RegExp(`\\n {2}--${option} +\\S[^\\n]{10,}\\n`));
  // The documents it names are files here (a clone) as they are in the package (package.json "files").
  const named = [...stdout.matchAll(/(\S+\/docs\/[\w-]+\.md)/g)].map((m) => m[1] ?? '');
  expect(named.length).toBeGreaterThan(0);
  expect(named.filter((path) => !existsSync(path))).toEqual([]);
});

test('connect --help says that --issue alone makes a new user', async () => {
  const { stdout } = await runCli(['connect', '--help'], env, root);
  expect(stdout).toContain(
    '--issue     make a new key of this NAME for the client instead of NAABA_KEY; alone it is the first key of a NEW user',
  );
});

test('help wins over anything else on the line, even an unknown flag', async () => {
  const result = await runCli(['migrate', '--colour', 'red', '--help'], env, root);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('naaba migrate --check');
  expect(existsSync(untouched)).toBe(false);
});

test.each([
  [['connect', 'json', '--user', 'someone'], '--user', 'connect'],
  [['serve', '--colour', 'red'], '--colour', 'serve'],
  [['export', '-x'], '-x', 'export'],
  [['list-keys', '--json=yes'], '--json takes no value', 'list-keys'],
  [['import', 'file.json', '--kind'], '--kind needs a value', 'import'],
  [['sweep', 'now'], 'unexpected argument "now"', 'sweep'],
])('naaba %j is a usage error naming what is wrong, and does nothing', async (args, named, command) => {
  const result = await runCli(args, env, root);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain(named);
  expect(result.stderr).toContain(`usage:\n  naaba ${command}`);
  expect(existsSync(untouched)).toBe(false);
});

/** A server that accepts a request and drops the connection: one that died while it worked. */
async function droppingServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((socket) => socket.once('data', () => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the test server has no port');
  return { server, url: `http://127.0.0.1:${address.port}` };
}

test('a server gone during a sweep, an import or a key command is one line naming it, no stack', async () => {
  const { server, url } = await droppingServer();
  const data = join(root, 'served');
  mkdirSync(data, { recursive: true, mode: 0o700 });
  // The note a running server leaves, naming a live process (this one) and the server that drops.
  writeFileSync(join(data, 'server.json'), JSON.stringify({ url, adminSecret: 'secret', pid: process.pid }));
  const file = join(root, 'one.json');
  writeFileSync(
    file,
    JSON.stringify({ format: 'naaba-memories', version: 1, exportedAt: new Date().toISOString(), memories: [], journal: [] }),
  );
  try {
    for (const args of [['sweep'], ['list-keys'], ['import', file]]) {
      const result = await runCli([...args, '--data', data], env, root);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`the server at ${url} stopped answering`);
      expect(result.stderr).not.toMatch(/TypeError|\n\s+at /);
    }
  } finally {
    server.close();
  }
});

test('a folder where a file belongs is one line naming it, for export and import', async () => {
  const folder = join(root, 'a-folder');
  mkdirSync(folder);
  const exported = await runCli(['export', folder, '--endpoint', 'http://127.0.0.1:9/mcp'], env, root);
  const imported = await runCli(['import', folder], env, root);
  expect(imported.stderr).toBe(`naaba: ${folder} is a directory, not a file; nothing was imported\n`);
  // The export asks the (absent) endpoint first: it fails there, in one line too.
  expect(exported.code).toBe(1);
  expect(exported.stderr).not.toMatch(/TypeError|\n\s+at /);
  expect(readdirSync(folder)).toEqual([]);
});
