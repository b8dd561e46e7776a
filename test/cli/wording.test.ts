import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startServe } from '../support/cli.js';

/**
 * The words a newcomer reads, exactly: a bad flag is named as typed, a count agrees with its noun,
 * a refused import says once that nothing was imported, and only the start that creates the
 * database says it does (issue 50).
 */

const dir = mkdtempSync(join(tmpdir(), 'naaba-wording-'));
const data = join(dir, 'data');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file `naaba export` could have written, holding one memory of `content`. */
function oneMemoryFile(name: string, content: string): string {
  const at = '2026-11-30T10:02:11.000Z';
  const memory = {
    id: '5f0c9a3e-3f1e-4b7a-9d53-0c3b7f1e2a44',
    kind: 'fact',
    content,
    pinned: false,
    createdAt: at,
    lastUsefulAt: at,
    recallCount: 0,
    restatements: 1,
    agent: 'laptop',
    client: 'claude-code/2.1.4',
    origin: 'a chat',
    restatedBy: [],
    conflicts: [],
    supersededBy: null,
    supersededAt: null,
    expiresAt: null,
  };
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ format: 'naaba-memories', version: 1, exportedAt: at, memories: [memory], journal: [] }));
  return path;
}

test.each([
  ['a flag', ['serve', '--port', 'abc'], {}, '--port "abc": expected an integer from 0 to 65535'],
  ['its environment twin', ['serve'], { NAABA_PORT: 'abc' }, 'NAABA_PORT="abc": expected an integer from 0 to 65535'],
  ['a region flag', ['list-keys', '--region', 'EU'], {}, '--region "EU": lowercase letters, digits and dashes'],
])('a bad value given by %s is named as it was given', async (_how, args, env, said) => {
  const result = await runCli([...args, '--data', data], env);
  expect([result.code, result.stderr]).toEqual([1, `naaba: configuration problems:\n  ${said}\n`]);
});

test('only the start that creates the database says so', async () => {
  const starts: string[] = [];
  for (let i = 0; i < 2; i += 1) {
    const server = await startServe(['--port', '0', '--data', data], { NAABA_SWEEP_EVERY_SECONDS: '0' });
    starts.push(server.output().split('\n')[0] ?? '');
    await server.stop();
  }
  expect(starts).toEqual([
    `naaba: creating the embedded database in ${data} (this first start creates and migrates it)`,
    `naaba: opening the embedded database in ${data}`,
  ]);
});

test('an import and an export of one memory say "1 memory"; an import refused for a field says once that nothing was imported', async () => {
  const issued = await runCli(['issue-key', 'wording', '--data', data, '--json']);
  const { token } = JSON.parse(issued.stdout) as { token: string };
  const as = { NAABA_KEY: token };
  const imported = await runCli(['import', oneMemoryFile('one.json', 'The ferry leaves at nine.'), '--data', data], as);
  expect(imported).toEqual({
    code: 0,
    stdout: `imported into ${data}: 1 memory written, 0 already there, 0 expired before the import (not written), 0 conflict links, 0 journal lines (of 1 memory in the file, in 1 step)\n`,
    stderr: '  1 of 1 memory written or found already there\n',
  });

  const exported = await runCli(['export', join(dir, 'out.json'), '--data', data], as);
  expect(exported.stderr).toBe(`exported 1 memory and 0 journal lines from ${data} to ${join(dir, 'out.json')}\n`);

  const refused = await runCli(['import', oneMemoryFile('long.json', 'a'.repeat(9000)), '--data', data], as);
  expect([refused.code, refused.stderr]).toEqual([
    1,
    'naaba: memories[0].content is 9000 bytes; the limit is 8192 bytes; nothing was imported\n',
  ]);
});
