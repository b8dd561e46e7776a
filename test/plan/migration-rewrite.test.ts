import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { migrate, RewriteRefusedError } from '../../lambda/adapters/pg/schema/migrate.js';
import { sql } from '../../lambda/adapters/pg/sql/template.js';

/**
 * A migration marked `-- naaba:rewrite TABLE: what` (decision 0152) is refused while its table
 * holds rows, unless `naaba migrate --allow-rewrite`; on an empty table it runs. On real PGlite,
 * so that the runner's read of the table is real SQL (test/unit/cockroach-migrations.test.ts holds
 * CockroachDB's 0011 to the rule through a double).
 */
describe('a rewrite on a populated table, on PGlite', () => {
  let folder: string;
  let db: PgliteSqlClient;

  beforeEach(async () => {
    folder = mkdtempSync(join(tmpdir(), 'naaba-rewrite-'));
    mkdirSync(join(folder, 'postgres'));
    writeFileSync(join(folder, 'postgres', '0001_probe.sql'), 'CREATE TABLE probe (id INT4 PRIMARY KEY);\n');
    db = await PgliteSqlClient.open();
  });
  afterEach(async () => {
    await db.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const rekey = () =>
    writeFileSync(
      join(folder, 'postgres', '0002_rekey_probe.sql'),
      '-- naaba:rewrite probe: its primary key and every index\nALTER TABLE probe ADD COLUMN IF NOT EXISTS k INT4 DEFAULT 0;\n',
    );
  const source = () => pathToFileURL(`${folder}/`);

  test('refused while the table holds rows, nothing of it applied; applied with allowRewrite', async () => {
    await migrate(db, { embeddingDimensions: 3, source: source() });
    await db.exec('INSERT INTO probe (id) VALUES (1)');
    rekey();

    await expect(migrate(db, { embeddingDimensions: 3, source: source() })).rejects.toThrow(RewriteRefusedError);
    await expect(migrate(db, { embeddingDimensions: 3, source: source() })).rejects.toThrow(
      'refused 0002_rekey_probe.sql: it rewrites probe (its primary key and every index) and probe holds rows',
    );
    const columns = await db.query<{ name: string }>(
      sql`SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'probe' ORDER BY column_name`,
    );
    expect(columns.map((c) => c.name)).toEqual(['id']);

    expect(await migrate(db, { embeddingDimensions: 3, source: source(), allowRewrite: true })).toEqual(['0002_rekey_probe.sql']);
  });

  test('applied without the flag while the table is empty', async () => {
    rekey();
    expect(await migrate(db, { embeddingDimensions: 3, source: source() })).toEqual(['0001_probe.sql', '0002_rekey_probe.sql']);
  });
});
