import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Environment } from '../../bin/cli/terminal.js';
import { runCli, startServe } from '../support/cli.js';

/**
 * A new data folder's database is created by a `naaba migrate` of its own, with the embedder the
 * server chose (the schema holds its dimensions), so the server never holds what creating it
 * allocated (decision 0155); a folder that exists is opened as it is. Here the separate process is
 * recorded and reports failure, so the server creates the database itself, as it does wherever
 * the separate process cannot run — and the folder works either way.
 */
test('serve hands a new folder to a separate naaba migrate with its embedder, never an existing one, and serves either way', async () => {
  const root = mkdtempSync(join(tmpdir(), 'naaba-new-folder-'));
  const data = join(root, 'data');
  const asked: { args: readonly string[]; env: Environment }[] = [];
  const record = async (args: readonly string[], env: Environment) => {
    asked.push({ args, env });
    return false;
  };
  try {
    const env = { NAABA_SWEEP_EVERY_SECONDS: '0' };
    const first = await startServe(['--port', '0', '--data', data], env, process.cwd(), record);
    expect(first.output()).toContain(`creating the embedded database in ${data}`);
    expect(await first.stop()).toBe(0);
    expect(asked.map((a) => a.args)).toEqual([['--data', data]]);
    expect(asked[0]?.env).toMatchObject({ NAABA_EMBEDDER: 'local', NAABA_EMBEDDING_DIMENSIONS: '256' });

    const again = await startServe(['--port', '0', '--data', data], env, process.cwd(), record);
    expect(again.output()).toContain(`opening the embedded database in ${data}`);
    expect(await again.stop()).toBe(0);
    expect(asked).toHaveLength(1);

    const check = await runCli(['migrate', '--check', '--data', data, '--json']);
    expect(JSON.parse(check.stdout)).toMatchObject({ compatible: true });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
