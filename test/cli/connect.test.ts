import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { environment } from '../../lambda/config/env.js';
import { runCli } from '../support/cli.js';

/**
 * `naaba connect CLIENT` as a user runs it: it prints what each client needs, writes it only with
 * --write (into the client's own file, keeping what else is there, never printing the key), and
 * for Claude Code runs Claude Code's own `claude mcp add`.
 */

const root = mkdtempSync(join(tmpdir(), 'naaba-connect-'));
const home = join(root, 'home');
const project = join(root, 'project');
const data = join(root, 'data');
const bin = join(root, 'bin');
for (const d of [home, project, bin]) mkdirSync(d, { recursive: true });
const KEY = `nb_${'k'.repeat(43)}`;
const URL = 'http://127.0.0.1:8000/mcp';

const connect = (args: string[], env: Record<string, string> = {}) =>
  runCli(['connect', ...args, '--data', data], { HOME: home, NAABA_KEY: '', ...env }, project);

afterAll(() => rmSync(root, { recursive: true, force: true }));

test('without --write it prints the configuration, with a placeholder and how to get a key, and writes nothing', async () => {
  const result = await connect(['cursor']);
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('Cursor: put in ~/.cursor/mcp.json');
  const json = result.stdout.slice(result.stdout.indexOf('{'), result.stdout.lastIndexOf('}') + 1);
  expect(JSON.parse(json)).toEqual({ mcpServers: { naaba: { url: URL, headers: { Authorization: 'Bearer nb_…' } } } });
  expect(result.stdout).toContain('set NAABA_KEY, or add --issue NAME');
  expect(existsSync(join(home, '.cursor'))).toBe(false);
  const claude = await connect(['claude-code'], { NAABA_KEY: KEY });
  expect(claude.stdout).toContain(
    `claude mcp add --transport http --scope user naaba ${URL} --header 'Authorization: Bearer ${KEY}'`,
  );
});

test('--write puts naaba into Cursor’s file beside the servers already there, owner-only, and never prints the key', async () => {
  mkdirSync(join(home, '.cursor'));
  const file = join(home, '.cursor', 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { other: { url: 'https://example.test/mcp' } }, theme: 'dark' }));
  const result = await connect(['cursor', '--write'], { NAABA_KEY: KEY });
  expect(result.code).toBe(0);
  expect(result.stdout).toContain(`wrote server "naaba" into ${file}`);
  expect(result.stdout + result.stderr).not.toContain(KEY);
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
    mcpServers: { other: { url: 'https://example.test/mcp' }, naaba: { url: URL, headers: { Authorization: `Bearer ${KEY}` } } },
    theme: 'dark',
  });
  expect(statSync(file).mode & 0o777).toBe(0o600);
});

test('VS Code’s file asks for the key itself: none is written into the project', async () => {
  const result = await connect(['vscode', '--write'], { NAABA_KEY: KEY });
  expect(result.code).toBe(0);
  const text = readFileSync(join(project, '.vscode', 'mcp.json'), 'utf8');
  expect(text).not.toContain(KEY);
  const config = JSON.parse(text);
  expect(config.servers.naaba).toEqual({ type: 'http', url: URL, headers: { Authorization: 'Bearer \u0024{input:naaba-key}' } });
  expect(config.inputs).toEqual([{ type: 'promptString', id: 'naaba-key', description: 'naaba API key (nb_…)', password: true }]);
  await connect(['vscode', '--write'], { NAABA_KEY: KEY });
  expect(JSON.parse(readFileSync(join(project, '.vscode', 'mcp.json'), 'utf8')).inputs).toHaveLength(1);
});

test('the generic JSON needs --file; a file that is not JSON is left alone', async () => {
  expect((await connect(['json', '--write'], { NAABA_KEY: KEY })).stderr).toContain('needs --file PATH');
  const bad = join(root, 'broken.json');
  writeFileSync(bad, '{ not json');
  const refused = await connect(['json', '--write', '--file', bad], { NAABA_KEY: KEY });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('is not a JSON object');
  expect(readFileSync(bad, 'utf8')).toBe('{ not json');
  const good = join(root, 'client.json');
  expect((await connect(['json', '--write', '--file', good], { NAABA_KEY: KEY })).code).toBe(0);
  expect(JSON.parse(readFileSync(good, 'utf8')).mcpServers.naaba).toEqual({
    type: 'http',
    url: URL,
    headers: { Authorization: `Bearer ${KEY}` },
  });
  expect((await connect(['cursor', '--write'])).stderr).toContain('--write needs a key');
  expect((await connect(['windsurf'])).code).toBe(2);
});

test('Claude Code: --write runs its own `claude mcp add` with the key, or says it is not installed', async () => {
  const missing = await connect(['claude-code', '--write'], {
    NAABA_KEY: KEY,
    PATH: `${bin}${delimiter}/usr/bin${delimiter}/bin`,
  });
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain('claude (Claude Code) is not on PATH');
  // A stand-in for Claude Code's CLI that records how it was called.
  const record = join(root, 'claude-args');
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}'\n`);
  chmodSync(join(bin, 'claude'), 0o755);
  const added = await connect(['claude-code', '--write'], {
    NAABA_KEY: KEY,
    PATH: `${bin}${delimiter}${environment().PATH ?? ''}`,
  });
  expect(added.code).toBe(0);
  expect(added.stdout).toContain('added server "naaba" to Claude Code');
  expect(readFileSync(record, 'utf8').trim().split('\n')).toEqual([
    'mcp',
    'add',
    '--transport',
    'http',
    '--scope',
    'user',
    'naaba',
    URL,
    '--header',
    `Authorization: Bearer ${KEY}`,
  ]);
});

test('--issue NAME makes a key for the client in the same line, and it is listed', async () => {
  const result = await connect(['cursor', '--issue', 'cursor-on-laptop']);
  expect(result.code).toBe(0);
  expect(result.stderr).toMatch(/issued key "cursor-on-laptop"/);
  const token = /Bearer (nb_[A-Za-z0-9_-]{43})/.exec(result.stdout)?.[1];
  expect(token).toBeDefined();
  const keys = JSON.parse((await runCli(['list-keys', '--data', data, '--json'])).stdout) as { name: string }[];
  expect(keys.map((k) => k.name)).toContain('cursor-on-laptop');
});

test('--write refuses a symbolic link, dangling or not, and changes nothing', async () => {
  const target = join(root, 'real-config.json');
  const original = JSON.stringify({ mcpServers: {} });
  writeFileSync(target, original);
  // Set after writing: a creation mode is masked by the process's umask, which another test may have narrowed.
  chmodSync(target, 0o644);
  const link = join(root, 'linked.json');
  symlinkSync(target, link);
  const dangling = join(root, 'dangling.json');
  symlinkSync(join(root, 'nowhere.json'), dangling);
  for (const file of [link, dangling]) {
    const result = await connect(['json', '--write', '--file', file], { NAABA_KEY: KEY });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file} is a symbolic link`);
    expect(result.stderr).toContain('nothing was written');
  }
  expect(readFileSync(target, 'utf8')).toBe(original);
  expect(statSync(target).mode & 0o777).toBe(0o644);
  expect(existsSync(join(root, 'nowhere.json'))).toBe(false);
});

test.each([
  ['a list', { mcpServers: [1, 2] }, '"mcpServers" as a list of 2 entries'],
  ['a string', { mcpServers: 'none' }, '"mcpServers" as a string'],
  ['null', { mcpServers: null }, '"mcpServers" as null'],
  ['a top-level list', [1], 'not a JSON object (it holds a list of 1 entry)'],
])('--write refuses servers held as %s, saying what it found, and changes nothing', async (_name, content, found) => {
  const file = join(root, `odd-${_name.replace(/\W/g, '-')}.json`);
  const text = JSON.stringify(content);
  writeFileSync(file, text);
  const result = await connect(['json', '--write', '--file', file], { NAABA_KEY: KEY });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(found);
  expect(result.stderr).toContain('nothing was written');
  expect(readFileSync(file, 'utf8')).toBe(text);
});

test('--write names a directory or a file it may not write in one line, no stack', async () => {
  const folder = join(root, 'a-directory');
  mkdirSync(folder);
  const directory = await connect(['json', '--write', '--file', folder], { NAABA_KEY: KEY });
  expect(directory.stderr).toBe(
    `naaba: ${folder} is a directory, not a file; nothing was written. Pass --file with the file itself\n`,
  );
  const locked = join(root, 'locked');
  mkdirSync(locked, { mode: 0o500 });
  const denied = await connect(['json', '--write', '--file', join(locked, 'mcp.json')], { NAABA_KEY: KEY });
  // As root every write is allowed: then the file is simply written.
  if (process.getuid?.() === 0) expect(denied.code).toBe(0);
  else expect([denied.code, denied.stderr]).toEqual([1, expect.stringContaining('permission denied; nothing was written')]);
  expect(denied.stderr).not.toMatch(/\n\s+at /);
});

test('--write keeps a file’s mode unless it will hold a key, and leaves no temporary file', async () => {
  const vscode = join(project, '.vscode', 'mcp.json');
  chmodSync(vscode, 0o644);
  expect((await connect(['vscode', '--write'], { NAABA_KEY: KEY })).code).toBe(0);
  expect(statSync(vscode).mode & 0o777).toBe(0o644);
  const shared = join(root, 'shared.json');
  writeFileSync(shared, '{}', { mode: 0o664 });
  chmodSync(shared, 0o664);
  const result = await connect(['json', '--write', '--file', shared], { NAABA_KEY: KEY });
  expect(result.stdout).toContain('its mode went from 0664 to 0600');
  expect(statSync(shared).mode & 0o777).toBe(0o600);
  expect(readdirSync(root).filter((n) => n.endsWith('.tmp'))).toEqual([]);
});
