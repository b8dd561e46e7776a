import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';

/**
 * Migration 0025 on a database whose sweeper kept its walks in naaba_settings (decision 0151): what
 * older code recorded is copied into each region's own rows, so the new code goes on where the old
 * stopped, and the old rows stay for older code still running during the deploy.
 */
describe('the sweeper state moved to rows of its region, on an upgraded database', () => {
  const folder = mkdtempSync(join(tmpdir(), 'naaba-sweeper-state-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  test("each region's cursors and expiring kinds are copied; the settings rows stay", async () => {
    const shipped = readdirSync('sql/postgres').filter((f) => /^\d{4}_/.test(f));
    expect(shipped).toContain('0025_sweeper_state.sql');
    for (const file of shipped.filter((f) => f < '0025')) cpSync(join('sql/postgres', file), join(folder, 'postgres', file));
    const db = await PgliteSqlClient.open();
    try {
      const source = pathToFileURL(`${folder}/`);
      await migrate(db, { embeddingDimensions: 3, source });
      const last = '00000000-0000-4000-8000-0000000000aa';
      await db.exec(`UPDATE naaba_settings SET value = '{"eu-central-1":"${last}","us-east-1":"ffffffff-ffff-ffff-ffff-ffffffffffff"}' WHERE name = 'passages_cursor';
        UPDATE naaba_settings SET value = '{"eu-central-1/session":"${last}"}' WHERE name = 'expiring_cursor';
        UPDATE naaba_settings SET value = '{"eu-central-1":["session","event"]}' WHERE name = 'expiring_kinds'`);

      cpSync(join('sql/postgres', '0025_sweeper_state.sql'), join(folder, 'postgres', '0025_sweeper_state.sql'));
      expect(await migrate(db, { embeddingDimensions: 3, source })).toEqual(['0025_sweeper_state.sql']);

      expect(await db.query(sql`SELECT region, name, value FROM sweeper_state ORDER BY region, name`)).toEqual([
        { region: 'eu-central-1', name: 'expiring/session', value: last },
        { region: 'eu-central-1', name: 'expiring_kinds', value: '["session", "event"]' },
        { region: 'eu-central-1', name: 'passages', value: last },
        { region: 'us-east-1', name: 'passages', value: 'ffffffff-ffff-ffff-ffff-ffffffffffff' },
      ]);
      const store = sqlMemoryStores(db).maintenance;
      expect(await store.expiringKinds('eu-central-1')).toEqual(['session', 'event']);
      expect(await store.expiringKinds('us-east-1')).toEqual([]);
      expect(await store.passagesPage('us-east-1', 10)).toMatchObject({ walked: 0, end: true, finished: true });
      const [kept] = await db.query<{ value: string }>(sql`SELECT value FROM naaba_settings WHERE name = 'expiring_kinds'`);
      expect(kept?.value).toBe('{"eu-central-1":["session","event"]}');
    } finally {
      await db.close();
    }
  });
});
