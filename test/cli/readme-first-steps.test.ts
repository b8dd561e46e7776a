import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { environment } from '../../lambda/config/env.js';
import { type RunningServe, runCli, startServe } from '../support/cli.js';

/**
 * The README's first steps, read from README.md and run as a newcomer runs them, in a shell, in the
 * clone, beside `npm start`'s server: one person, one memory — every key they make is the same
 * user's (issue 50). The one word a person fills in, USER_ID, is what the first line printed.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'naaba-readme-'));
const data = join(root, 'data');
const home = join(root, 'home');
const bin = join(root, 'bin');
for (const d of [home, bin]) mkdirSync(d, { recursive: true });

/** The shell lines of the README's "First steps", in order. */
function firstSteps(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = /\n## First steps\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) =>
    (block[1] ?? '')
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter(Boolean),
  );
}

let server: RunningServe;
beforeAll(async () => {
  server = await startServe(['--port', '0', '--data', data], { NAABA_SWEEP_EVERY_SECONDS: '0' }, root);
});
afterAll(async () => {
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

test('the README’s first steps, run literally, give one person one memory', async () => {
  const lines = firstSteps();
  expect(lines).toEqual([
    'npx naaba connect claude-code --issue claude-code --write',
    'npx naaba connect cursor --issue cursor --user USER_ID --write',
    'npx naaba issue-key my-agent --user USER_ID',
  ]);
  // A stand-in for Claude Code's own CLI that keeps what it was told.
  writeFileSync(join(bin, 'claude'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${join(root, 'claude-args')}'\n`);
  chmodSync(join(bin, 'claude'), 0o755);
  // The data folder by its environment twin, so the lines stay as written.
  const env = { ...environment(), HOME: home, NAABA_KEY: '', NAABA_DATA_DIR: data, PATH: `${bin}:${environment().PATH}` };
  let userId = '';
  for (const line of lines) {
    const run = line.replaceAll('USER_ID', userId);
    const { stdout, stderr } = await promisify(execFile)('sh', ['-c', run], { cwd: ROOT, env });
    userId ||= /for a new user ([0-9a-f-]{36})/.exec(stderr)?.[1] ?? '';
    expect({ line, userId, said: stdout + stderr }).toEqual({
      line,
      userId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      said: expect.any(String),
    });
  }
  const listed = JSON.parse((await runCli(['list-keys', '--json', '--data', data])).stdout) as {
    name: string;
    user_id: string;
  }[];
  expect(listed.map((k) => [k.name, k.user_id])).toEqual([
    ['claude-code', userId],
    ['cursor', userId],
    ['my-agent', userId],
  ]);
  expect(readFileSync(join(root, 'claude-args'), 'utf8')).toContain(`${server.url}/mcp`);
  expect(existsSync(join(home, '.cursor', 'mcp.json'))).toBe(true);
}, 600_000);
