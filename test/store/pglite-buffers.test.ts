import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseBuffers } from '../../lambda/adapters/pg/pglite-buffers.js';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { buffersForData } from '../../lambda/config/database.js';
import { loadConfig } from '../../lambda/config/env.js';

const MIB = 1024 * 1024;

const shown = async (client: PgliteSqlClient) =>
  (await client.query<{ shared_buffers: string }>(sql`SHOW shared_buffers`))[0]?.shared_buffers;

async function shownAt(dir: string, buffersMb?: number): Promise<string | undefined> {
  const client = await PgliteSqlClient.open(dir, undefined, buffersMb);
  try {
    return await shown(client);
  } finally {
    await client.close();
  }
}

test.each([
  [0, 16],
  [8 * MIB, 16],
  [16 * MIB, 16],
  [16 * MIB + 1, 32],
  [100 * MIB, 128],
  [129 * MIB, 256],
  [2048 * MIB, 256],
])('a database of %d bytes gets %d MB of shared buffers when the setting is not given', (bytes, mb) => {
  expect(buffersForData(bytes)).toBe(mb);
});

test('NAABA_PGLITE_BUFFERS_MB gives the buffers, within 16 to 1024; unset, the folder sizes them', () => {
  const local = (env: Record<string, string>) => loadConfig({ NAABA_DATA_DIR: '/tmp/naaba-unused', ...env }).database;
  expect(local({})).toMatchObject({ kind: 'pglite', buffersMb: undefined });
  expect(local({ NAABA_PGLITE_BUFFERS_MB: '96' })).toMatchObject({ kind: 'pglite', buffersMb: 96 });
  for (const wrong of ['8', '2048', '256MB'])
    expect(() => local({ NAABA_PGLITE_BUFFERS_MB: wrong })).toThrow(
      `NAABA_PGLITE_BUFFERS_MB="${wrong}": expected an integer from 16 to 1024`,
    );
});

test("a folder's database opens with buffers sized to its data as it is at that open, unless the setting gives them", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'naaba-buffers-'));
  try {
    expect(chooseBuffers(dir)).toEqual({ mb: 16, dataBytes: 0, set: false });
    expect(await shownAt(dir)).toBe('16MB');
    // Past 16 MB of rows (md5 text does not compress), the next open doubles them.
    const client = await PgliteSqlClient.open(dir);
    await client.exec(
      'CREATE TABLE filler AS SELECT i, md5(i::text) || md5((i + 1)::text) || md5((i + 2)::text) AS t FROM generate_series(1, 150000) AS i; CHECKPOINT',
    );
    await client.close();
    const grown = chooseBuffers(dir);
    expect(grown.dataBytes).toBeGreaterThan(16 * MIB);
    expect(grown.mb).toBe(buffersForData(grown.dataBytes));
    expect(await shownAt(dir)).toBe(`${grown.mb}MB`);
    expect(chooseBuffers(dir, 64)).toMatchObject({ mb: 64, set: true });
    expect(await shownAt(dir, 64)).toBe('64MB');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a database in memory keeps PGlite's own buffers", async () => {
  const client = await PgliteSqlClient.open();
  try {
    expect(await shown(client)).toBe('128MB');
  } finally {
    await client.close();
  }
});
