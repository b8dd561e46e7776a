import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { environment } from '../../lambda/config/env.js';
import { listedKeys, NAABA_BIN, runCli, type RunningServe, startServe } from '../support/cli.js';
import { pollUntil } from '../support/poll.js';

/**
 * `naaba connect --write` checks a key with the server it names before writing it, and says when
 * it could not; a `connect --issue … --write` stopped by Ctrl-C or SIGTERM takes its key back, or
 * shows its token when it cannot (issue 50).
 */

const root = mkdtempSync(join(tmpdir(), 'naaba-connect-check-'));
const data = join(root, 'data');
const home = join(root, 'home');
mkdirSync(home);
const cursorFile = join(home, '.cursor', 'mcp.json');

const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli([...args, '--data', data], { HOME: home, NAABA_KEY: '', ...env }, root);

const keys = () => listedKeys(cli);

let server: RunningServe;
let owner = { token: '', user_id: '', key_id: '' };
beforeAll(async () => {
  server = await startServe(['--port', '0', '--data', data], { HOME: home, NAABA_SWEEP_EVERY_SECONDS: '0' }, root);
  owner = JSON.parse((await cli(['issue-key', 'owner', '--json'])).stdout) as typeof owner;
});
afterAll(async () => {
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

test.each([
  ['an unknown key', () => `nb_${'x'.repeat(43)}`],
  [
    'a revoked key',
    async () => {
      const made = JSON.parse((await cli(['issue-key', 'gone', '--user', owner.user_id, '--json'])).stdout) as typeof owner;
      await cli(['revoke-key', made.key_id]);
      return made.token;
    },
  ],
])('%s is refused before it is written, naming what to do', async (_case, tokenOf) => {
  const result = await cli(['connect', 'cursor', '--write'], { NAABA_KEY: await tokenOf() });
  expect([result.code, result.stderr]).toEqual([
    1,
    `naaba: ${server.url}/mcp does not know the key in NAABA_KEY (a mistyped or revoked key); nothing was written. npx naaba list-keys shows the active keys\n`,
  ]);
  expect(existsSync(cursorFile)).toBe(false);
});

test('a key the server takes is written', async () => {
  const result = await cli(['connect', 'cursor', '--write'], { NAABA_KEY: owner.token });
  expect([result.code, result.stderr]).toEqual([0, '']);
  expect(readFileSync(cursorFile, 'utf8')).toContain(`Bearer ${owner.token}`);
});

test('a server that does not answer: the key is written, and the command says it could not check it', async () => {
  const file = join(root, 'elsewhere.json');
  const nobody = 'https://127.0.0.1:9/mcp';
  const result = await cli(['connect', 'json', '--write', '--file', file, '--endpoint', nobody], { NAABA_KEY: owner.token });
  expect([result.code, result.stderr]).toEqual([
    0,
    `naaba: could not check NAABA_KEY against ${nobody} (it did not answer); it is written unchecked\n`,
  ]);
  expect(readFileSync(file, 'utf8')).toContain(nobody);
});

/** Runs the real binary's `connect … --write` into a file whose write never ends, and signals it once it issued its key. */
async function interrupted(signal: NodeJS.Signals, name: string, onIssued = () => {}, env: Record<string, string> = {}) {
  // Under /proc a recursive mkdir never returns: the write hangs, as the issue found.
  const hanging = '/proc/naaba-never/mcp.json';
  const child = spawn(
    process.execPath,
    [NAABA_BIN, 'connect', 'json', '--issue', name, '--user', owner.user_id, '--write', '--file', hanging, '--data', data],
    { env: { ...environment(), HOME: home, NAABA_KEY: '', ...env }, cwd: root },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(
    await pollUntil(
      () => stderr,
      (s) => s.includes(`issued key "${name}"`),
      120_000,
    ),
  ).toContain('issued key');
  onIssued();
  child.kill(signal);
  return { code: await exited, stdout, stderr };
}

test('Ctrl-C while the configuration is being written revokes the key it issued', async () => {
  const result = await interrupted('SIGINT', 'interrupted');
  expect(result.code).toBe(130);
  expect(result.stderr).toMatch(
    /key "interrupted" \(id [0-9a-f-]{36}\) was revoked again\nnaaba: interrupted before the client was connected\n$/,
  );
  expect((await keys()).filter((k) => k.name === 'interrupted').map((k) => k.revoked_at === null)).toEqual([false]);
});

test('SIGTERM when the key cannot be revoked: its token is printed, never lost', async () => {
  const note = join(data, 'server.json');
  const spoil = () => writeFileSync(note, readFileSync(note, 'utf8').replace(/"adminSecret":"[^"]*"/, '"adminSecret":"spoilt"'));
  const original = readFileSync(note, 'utf8');
  let result: Awaited<ReturnType<typeof interrupted>>;
  try {
    result = await interrupted('SIGTERM', 'terminated', spoil);
  } finally {
    writeFileSync(note, original);
  }
  expect(result.code).toBe(130);
  expect(result.stderr).toContain('could not be revoked: admin secret required');
  expect(result.stdout).toMatch(
    /Key "terminated" \(id [0-9a-f-]{36}\) is active; use it, or revoke it with npx naaba revoke-key [0-9a-f-]{36}\n {2}token: {3}nb_[A-Za-z0-9_-]{43}\n/,
  );
  expect((await keys()).filter((k) => k.name === 'terminated').map((k) => k.revoked_at)).toEqual([null]);
});

test('Ctrl-C when the server takes the revoke but never answers: the token is printed after the wait', async () => {
  // A server that accepts the connection and never answers, as a stopped (not gone) process does.
  const held: Socket[] = [];
  const silent = createServer((socket) => {
    held.push(socket);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const note = join(data, 'server.json');
  const original = readFileSync(note, 'utf8');
  const unanswering = () => writeFileSync(note, original.replace(/"url":"[^"]*"/, `"url":"http://127.0.0.1:${port}"`));
  let result: Awaited<ReturnType<typeof interrupted>>;
  try {
    result = await interrupted('SIGINT', 'unanswered', unanswering, { NAABA_HEALTHZ_TIMEOUT_MS: '500' });
  } finally {
    writeFileSync(note, original);
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
  expect(result.code).toBe(130);
  expect(result.stderr).toContain(
    'could not be revoked: the server gave no answer within 0.5 s (it may still revoke it once it answers; npx naaba list-keys says)',
  );
  expect(result.stdout).toMatch(
    /Key "unanswered" \(id [0-9a-f-]{36}\) is active; use it, or revoke it with npx naaba revoke-key [0-9a-f-]{36}\n {2}token: {3}nb_[A-Za-z0-9_-]{43}\n/,
  );
});
