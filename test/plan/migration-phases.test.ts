import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ContractPendingError,
  contractRequires,
  contractStatements,
  MIGRATION_FILE,
  MigrationError,
  migrate,
  migrationFiles,
} from '../../lambda/adapters/pg/schema/migrate.js';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { SchemaError } from '../../lambda/adapters/pg/schema/facts.js';
import { appliedMigrations, compareSchema, requireKnownSchema } from '../../lambda/adapters/pg/schema/version.js';
import { REPO_ROOT } from '../../lib/bundling.js';

/**
 * Expand and contract (decision 0071): a migration is an expansion unless its file says it is a
 * contract and names the first migration of code that no longer needs what it removes; `naaba
 * migrate` refuses an unmarked file that changes what older code uses, and stops before a marked
 * one unless told `--contract`; the functions refuse a database with a contract made for newer code.
 */
const ENGINES = ['postgres', 'cockroach'] as const;

describe.each(ENGINES)('every %s migration of the repository', (engine) => {
  const files = readdirSync(join(REPO_ROOT, 'sql', engine)).filter((f) => MIGRATION_FILE.test(f));

  test.each(files)('%s is an expansion, or a contract that names an earlier migration', (file) => {
    const script = readFileSync(join(REPO_ROOT, 'sql', engine, file), 'utf8');
    const requires = contractRequires(script);

    if (requires === undefined) expect(contractStatements(script)).toEqual([]);
    else expect(files.filter((f) => f < file)).toContain(requires);
  });
});

test.each([
  ['ALTER TABLE memories DROP COLUMN origin;', true],
  ['DROP TABLE journal;', true],
  ['ALTER TABLE memories RENAME COLUMN origin TO source;', true],
  ['ALTER TABLE memories ALTER COLUMN origin SET NOT NULL;', true],
  ['ALTER TABLE memories ALTER COLUMN kind TYPE VARCHAR(20);', true],
  ["ALTER TABLE memories ADD CONSTRAINT k CHECK (kind <> '');", true],
  ['DELETE FROM journal;', true],
  ['ALTER TABLE memories ADD COLUMN weight INT4 NOT NULL;', true],
  ['ALTER TABLE memories ADD COLUMN weight INT4 DEFAULT 0 NOT NULL;', false],
  ['ALTER TABLE memories ADD COLUMN IF NOT EXISTS note TEXT;', false],
  ['ALTER TABLE api_keys ALTER COLUMN token_sha256 DROP NOT NULL;', false],
  ['CREATE TABLE IF NOT EXISTS partition_stats (\n  region TEXT NOT NULL\n);', false],
  ['CREATE INDEX IF NOT EXISTS x ON memories (kind);', false],
  ['DROP INDEX memories_user_kind;', false],
  ['ALTER TABLE memories ALTER PRIMARY KEY USING COLUMNS (region, user_id, kind, id);', false],
  ["UPDATE memories SET note = '' WHERE note IS NULL;", false],
])('%s is a statement only a contract may hold: %s', (statement, contract) => {
  expect(contractStatements(`-- a comment; with a semicolon\n${statement}\n`).length > 0).toBe(contract);
});

test.each([
  [
    '-- naaba:contract requires=0008_stop_using_origin.sql\nALTER TABLE memories DROP COLUMN origin;',
    '0008_stop_using_origin.sql',
  ],
  ['--naaba:contract requires=0008_stop_using_origin\n', '0008_stop_using_origin.sql'],
  ['-- a contract, requires=0008 (prose, not the marker)\n', undefined],
])('the marker of %j names %s', (script, requires) => {
  expect(contractRequires(script)).toBe(requires);
});

describe('a release that drops a table, migrated in two steps (PGlite)', () => {
  let folder: string;
  let source: URL;
  let db: PgliteSqlClient;
  beforeAll(async () => {
    // The repository's migrations, then a release that adds a table, one whose code stops using it, one that drops it.
    folder = mkdtempSync(join(tmpdir(), 'naaba-phases-'));
    mkdirSync(join(folder, 'postgres'));
    for (const file of await migrationFiles('postgres'))
      copyFileSync(join(REPO_ROOT, 'sql/postgres', file), join(folder, 'postgres', file));
    writeFileSync(join(folder, 'postgres', '0097_probe.sql'), 'CREATE TABLE probe (id INT4);\n');
    writeFileSync(join(folder, 'postgres', '0098_stop_using_probe.sql'), '-- code from here on never reads probe\nSELECT 1;\n');
    writeFileSync(
      join(folder, 'postgres', '0099_drop_probe.sql'),
      '-- naaba:contract requires=0098_stop_using_probe.sql\nDROP TABLE probe;\n',
    );
    source = pathToFileURL(`${folder}/`);
    db = await PgliteSqlClient.open();
    await migrate(db, { embeddingDimensions: 256 });
  });
  afterAll(async () => {
    await db.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test('naaba migrate applies the expansions, then stops before the contract and says what to do first', async () => {
    const stopped = migrate(db, { embeddingDimensions: 256, source, stopBeforeContract: true });

    await expect(stopped).rejects.toThrow(ContractPendingError);
    await expect(stopped).rejects.toThrow(
      /stopped before 0099_drop_probe\.sql: it is a contract migration, which removes what code older than 0098_stop_using_probe\.sql still uses\. Deploy code that ships 0098_stop_using_probe\.sql to every region/,
    );
    expect(await db.query(sql`SELECT * FROM probe`)).toEqual([]);
    const applied = (await appliedMigrations(db)).map((m) => m.version);
    expect(applied).toEqual(expect.arrayContaining(['0097_probe.sql', '0098_stop_using_probe.sql']));
    expect(applied).not.toContain('0099_drop_probe.sql');
  });

  test('--contract applies it, and the record says which code it needs', async () => {
    expect(await migrate(db, { embeddingDimensions: 256, source })).toEqual(['0099_drop_probe.sql']);

    await expect(db.query(sql`SELECT * FROM probe`)).rejects.toThrow(/probe/);
    expect((await appliedMigrations(db)).find((m) => m.version === '0099_drop_probe.sql')).toEqual({
      version: '0099_drop_probe.sql',
      requires: '0098_stop_using_probe.sql',
    });
  });

  test('code built before that release refuses the database, naming the migration and the release to deploy', async () => {
    const standing = compareSchema(await migrationFiles('postgres'), await appliedMigrations(db));

    expect(standing).toMatchObject({ state: 'ahead', compatible: false });
    expect(standing.incompatible.map((m) => m.version)).toEqual(['0099_drop_probe.sql']);
    await expect(requireKnownSchema(db)).rejects.toThrow(SchemaError);
    await expect(requireKnownSchema(db)).rejects.toThrow(
      "this code does not know the database's schema: the database has 0099_drop_probe.sql, a contract migration for code that knows 0098_stop_using_probe.sql, which this code predates: deploy that release or a newer one",
    );
  });

  test('code that knows the marker runs against it: a contract needs only what it names', () => {
    const known = [...readdirSync(join(folder, 'postgres'))].filter((f) => f <= '0098_stop_using_probe.sql').sort();

    return appliedMigrations(db).then((applied) =>
      expect(compareSchema(known, applied)).toMatchObject({ state: 'ahead', compatible: true, incompatible: [] }),
    );
  });

  test('an unmarked migration that drops something is refused before it runs', async () => {
    writeFileSync(join(folder, 'postgres', '0100_sneaky.sql'), 'ALTER TABLE journal DROP COLUMN recall_count;\n');

    await expect(migrate(db, { embeddingDimensions: 256, source })).rejects.toThrow(MigrationError);
    await expect(migrate(db, { embeddingDimensions: 256, source })).rejects.toThrow(
      /0100_sneaky\.sql changes what older code uses \(ALTER TABLE journal DROP COLUMN recall_count.*does not say it is a contract migration/,
    );
    expect((await db.query<{ n: number }>(sql`SELECT count(recall_count)::int4 AS n FROM journal`))[0]?.n).toBe(0);
  });
});

test('a new database takes every migration at once, contracts included: no code can be running against it', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'naaba-phases-new-'));
  mkdirSync(join(folder, 'postgres'));
  for (const file of await migrationFiles('postgres'))
    copyFileSync(join(REPO_ROOT, 'sql/postgres', file), join(folder, 'postgres', file));
  writeFileSync(join(folder, 'postgres', '0098_marker.sql'), 'SELECT 1;\n');
  writeFileSync(
    join(folder, 'postgres', '0099_contract.sql'),
    '-- naaba:contract requires=0098_marker.sql\nDROP INDEX journal_region_at;\n',
  );
  const db = await PgliteSqlClient.open();
  try {
    const applied = await migrate(db, {
      embeddingDimensions: 256,
      source: pathToFileURL(`${folder}/`),
      stopBeforeContract: true,
    });

    expect(applied.slice(-2)).toEqual(['0098_marker.sql', '0099_contract.sql']);
  } finally {
    await db.close();
    rmSync(folder, { recursive: true, force: true });
  }
});
