import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { pgliteDir } from '../../lambda/composition.js';
import { type RunningServe, runBinary, runCli, startServe } from '../support/cli.js';
import { connect } from '../support/endpoint.js';

/**
 * The key commands as a user runs them: without a server (they open the data folder), while
 * `naaba serve` owns the folder (they go through it), and the server accepts new keys at once.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'naaba-cli-'));
const data = ['--data', dataDir];
const issued: { token: string; key_id: string; user_id: string; region: string; name: string }[] = [];
let server: RunningServe | undefined;

/** Issues a key through the CLI in this process, or through the real binary. */
const issue = async (...args: string[]) => issueWith(runCli, ...args);
const issueWith = async (run: typeof runCli, ...args: string[]) => {
  const result = await run(['issue-key', ...args, ...data, '--json']);
  expect(result).toMatchObject({ code: 0 });
  const key = JSON.parse(result.stdout);
  issued.push(key);
  return key as (typeof issued)[number];
};

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('issue-key without a server prints one JSON object with token, key_id, user_id and region (the real binary)', async () => {
  const key = await issueWith(runBinary, 'first-agent');
  expect(key.token).toMatch(/^nb_[A-Za-z0-9_-]{43}$/);
  expect(key).toMatchObject({ region: 'local', name: 'first-agent' });
  expect(key.key_id).toMatch(/^[0-9a-f-]{36}$/);
  expect(key.user_id).toMatch(/^[0-9a-f-]{36}$/);
});

test('the region comes from --region, else NAABA_REGION, else local', async () => {
  expect((await issue('eu-agent', '--region', 'eu-west-1')).region).toBe('eu-west-1');
  const viaEnv = await runCli(['issue-key', 'ap-agent', ...data, '--json'], { NAABA_REGION: 'ap-south-1' });
  issued.push(JSON.parse(viaEnv.stdout));
  expect(issued.at(-1)?.region).toBe('ap-south-1');
});

test('naaba serve owns the folder; key commands go through it and its keys work at once', async () => {
  const serving = await startServe(['--port', '0', ...data]);
  server = serving;
  expect(serving.output()).toContain('/mcp');
  const during = await issue('second-agent');
  for (const key of [issued[0], during]) {
    const client = await connect(`${serving.url}/mcp`, key?.token ?? '');
    expect((await client.listTools()).tools).toHaveLength(4);
    await client.close();
  }
  const revoked = await runCli(['revoke-key', issued[0]?.key_id ?? '', ...data]);
  expect(revoked.code).toBe(0);
  const refused = await fetch(`${serving.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${issued[0]?.token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(refused.status).toBe(401);
});

test('list-keys never prints a secret, with or without a server (then the real binary reads the folder)', async () => {
  const during = await runCli(['list-keys', ...data, '--json']);
  await server?.stop();
  server = undefined;
  const after = await runBinary(['list-keys', ...data, '--json']);
  for (const result of [during, after]) {
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as { key_id: string; revoked_at: string | null }[];
    expect(rows.length).toBe(issued.length);
    expect(rows.find((r) => r.key_id === issued[0]?.key_id)?.revoked_at).not.toBeNull();
    for (const key of issued) {
      expect(result.stdout).not.toContain(key.token);
      expect(result.stdout).not.toContain(createHash('sha256').update(key.token).digest('hex'));
    }
  }
});

test('only the SHA-256 of each token is stored', async () => {
  const db = await PgliteSqlClient.open(pgliteDir(dataDir));
  const rows = await db.query<Record<string, unknown>>(sql`SELECT * FROM api_keys`);
  await db.close();
  const stored = JSON.stringify(rows);
  for (const key of issued) {
    expect(stored).not.toContain(key.token);
    expect(stored).toContain(createHash('sha256').update(key.token).digest('hex'));
  }
});

test('bad key commands fail with one clear line', async () => {
  const unknown = await runCli(['revoke-key', '4a1b2c3d-0000-4000-8000-000000000000', ...data]);
  expect(unknown).toMatchObject({ code: 1 });
  expect(unknown.stderr).toMatch(/no key with id/);
  const malformed = await runCli(['revoke-key', 'nope', ...data]);
  expect(malformed.stderr).toMatch(/not a UUID/);
  const noName = await runCli(['issue-key', ...data]);
  expect(noName).toMatchObject({ code: 2 });
});
