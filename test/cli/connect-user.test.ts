import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listedKeys, runCli, startServe } from '../support/cli.js';
import { pollUntil } from '../support/poll.js';

/**
 * `naaba connect --issue NAME --user USER_ID` joins a user one already is (the page's line for the
 * signed-in user), and a `connect` that fails leaves no key active and no token unseen (decision 0111).
 */

const root = mkdtempSync(join(tmpdir(), 'naaba-connect-user-'));
const data = join(root, 'data');
const home = join(root, 'home');
const bin = join(root, 'bin');
for (const d of [home, bin]) mkdirSync(d, { recursive: true });

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli([...args, '--data', data], { HOME: home, NAABA_KEY: '', ...env }, root);

const keys = () => listedKeys(cli);

let owner = '';
beforeAll(async () => {
  owner = (JSON.parse((await cli(['issue-key', 'page', '--json'])).stdout) as { user_id: string }).user_id;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

test('--issue with --user makes a key of that user, so the client shares the memories the page shows', async () => {
  const result = await cli(['connect', 'cursor', '--issue', 'laptop', '--user', owner]);
  expect(result.code).toBe(0);
  expect(result.stderr).toContain(`issued key "laptop" (id `);
  expect(result.stderr).toContain(`of user ${owner} for this client`);
  expect(result.stdout).toMatch(/Bearer nb_[A-Za-z0-9_-]{43}/);
  expect((await keys()).filter((k) => k.name === 'laptop').map((k) => k.user_id)).toEqual([owner]);
});

test.each([
  ['--user without --issue', ['--user', '00000000-0000-4000-8000-000000000000'], {}, '--user says whose key --issue NAME makes'],
  ['--issue without --user while NAABA_KEY is set', ['--issue', 'split'], { NAABA_KEY: `nb_${'k'.repeat(43)}` }, 'a new user'],
])('%s is a usage error, and no key is issued', async (_case, args, env, said) => {
  const before = (await keys()).length;
  const result = await cli(['connect', 'cursor', ...args], env);
  expect([result.code, result.stderr]).toEqual([2, expect.stringContaining(said)]);
  expect(await keys()).toHaveLength(before);
});

test('a Claude Code that is not installed: the key --issue made is revoked again, and the failure said', async () => {
  const result = await cli(['connect', 'claude-code', '--issue', 'claude-code', '--user', owner, '--write'], { PATH: bin });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('claude (Claude Code) is not on PATH');
  expect(result.stderr).toMatch(/key "claude-code" \(id [0-9a-f-]{36}\) was revoked again/);
  const made = (await keys()).filter((k) => k.name === 'claude-code');
  expect(made).toHaveLength(1);
  expect(made[0]?.revoked_at).not.toBeNull();
});

test('a configuration file naaba would refuse is refused before any key is issued', async () => {
  const broken = join(root, 'broken.json');
  writeFileSync(broken, '{ not json');
  const before = (await keys()).length;
  const result = await cli(['connect', 'json', '--issue', 'agent', '--user', owner, '--write', '--file', broken]);
  expect([result.code, result.stderr]).toEqual([1, expect.stringContaining('nothing was written')]);
  expect(await keys()).toHaveLength(before);
  expect(readFileSync(broken, 'utf8')).toBe('{ not json');
});

test('VS Code keeps the key out of its file, so a key --issue made for it is shown', async () => {
  const result = await cli(['connect', 'vscode', '--issue', 'vscode', '--user', owner, '--write']);
  expect(result.code).toBe(0);
  const token = /shown once, only its SHA-256 is stored\): (nb_[A-Za-z0-9_-]{43})/.exec(result.stdout)?.[1];
  expect(token).toBeDefined();
  expect(readFileSync(join(root, '.vscode', 'mcp.json'), 'utf8')).not.toContain(token);
});

test('serve’s banner names the page, embedder, configuration and data folder, and a connect line that works as printed; a key connect cannot take back is shown', async () => {
  const server = await startServe(['--port', '0', '--data', data], { HOME: home, NAABA_KEY: '' }, root);
  try {
    const output = await pollUntil(server.output, (text) => text.includes('connect a client'));
    expect(output).toContain(`  page: ${server.url}/  (sign in with a key`);
    expect(output).toMatch(
      / {2}curation rules: defaults, no configuration file; embedder: local-lexical-v\d+\/\d+ {2}\(--config FILE/,
    );
    expect(output).toContain(`  data folder: ${data}`);
    expect(output).toContain(`keys: npx naaba list-keys --data ${data}`);
    const line = /connect a client, in another terminal: {2}npx naaba (.+)/.exec(output)?.[1] ?? '';
    expect(line).toBe(`connect claude-code --issue claude-code --user ${owner} --data ${data} --write`);
    // Run as printed, beside the server, with a stand-in for Claude Code's CLI.
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, 'claude'), 0o755);
    const connected = await runCli(line.split(' '), { HOME: home, NAABA_KEY: '', PATH: `${bin}:/usr/bin:/bin` }, root);
    expect([connected.code, connected.stdout]).toEqual([
      0,
      expect.stringContaining(`to Claude Code (user scope): ${server.url}/mcp`),
    ]);
    // A Claude Code that fails after spoiling the server's admin secret: the key cannot be revoked, so its token is shown.
    writeFileSync(
      join(bin, 'claude'),
      `#!/bin/sh\nsed -i 's/"adminSecret":"[^"]*"/"adminSecret":"spoilt"/' '${join(data, 'server.json')}'\nexit 1\n`,
    );
    const stuck = await runCli(
      ['connect', 'claude-code', '--issue', 'kept', '--user', owner, '--data', data, '--write'],
      { HOME: home, NAABA_KEY: '', PATH: `${bin}:/usr/bin:/bin` },
      root,
    );
    expect([stuck.code, stuck.stderr]).toEqual([1, expect.stringContaining('could not be revoked: admin secret required')]);
    expect(stuck.stdout).toMatch(
      /Key "kept" \(id [0-9a-f-]{36}\) is active; use it, or revoke it with npx naaba revoke-key [0-9a-f-]{36}\n {2}token: {3}nb_[A-Za-z0-9_-]{43}\n/,
    );
  } finally {
    await server.stop();
  }
  expect((await keys()).filter((k) => k.name === 'kept').map((k) => k.revoked_at)).toEqual([null]);
  // Every key the tests made, the banner's line included, is of the one user.
  expect(new Set((await keys()).map((k) => k.user_id))).toEqual(new Set([owner]));
});
