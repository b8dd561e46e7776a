import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const TEMPLATES = join(ROOT, 'node_modules', '.cache', 'naaba-pglite');

/**
 * A migrated in-memory PGlite: the real SQL engine of the local endpoint, for one test file.
 *
 * A new PGlite runs initdb, which costs about three times what loading a dumped database costs
 * (2.4 s against 0.7 s of CPU here). So the first test file of a run migrates a database and dumps
 * it as a template, named by what built it (the migrations, the code that applies them, PGlite's
 * version, the dimensions), and every later one starts from a copy. `migrate` still runs on the
 * copy: a template that missed a migration would get it there, never silently lack it. The
 * migrations themselves are tested from an empty database (test/plan/migration-phases.test.ts,
 * test/store/live-migration.test.ts).
 */
export async function freshDatabase(embeddingDimensions = 256): Promise<PgliteSqlClient> {
  const template = await migratedTemplate(embeddingDimensions);
  const db = await PgliteSqlClient.open(undefined, template);
  await migrate(db, { embeddingDimensions });
  return db;
}

async function migratedTemplate(embeddingDimensions: number): Promise<Blob> {
  const file = join(TEMPLATES, `${templateKey(embeddingDimensions)}.tar`);
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  const db = await PgliteSqlClient.open();
  try {
    await migrate(db, { embeddingDimensions });
    const dump = await db.dump();
    mkdirSync(TEMPLATES, { recursive: true });
    // Written aside then renamed: two workers building the same template never leave half a file.
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()));
    renameSync(partial, file);
    return dump;
  } finally {
    await db.close();
  }
}

/** Everything a migrated database depends on: change any of it and a new template is built. */
function templateKey(embeddingDimensions: number): string {
  const hash = createHash('sha256');
  const inputs = [join(ROOT, 'sql', 'postgres'), join(ROOT, 'lambda', 'adapters', 'pg', 'schema')];
  for (const dir of inputs) {
    for (const name of readdirSync(dir).sort()) hash.update(name).update(readFileSync(join(dir, name)));
  }
  hash.update(readFileSync(join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json')));
  hash.update(readFileSync(join(ROOT, 'node_modules', '@electric-sql', 'pglite-pgvector', 'package.json')));
  return `${hash.digest('hex').slice(0, 16)}-${embeddingDimensions}`;
}

/** Empties every naaba table between tests, keeping the schema. */
export async function truncateAll(db: PgliteSqlClient): Promise<void> {
  await db.exec(
    'TRUNCATE memory_links, memories, memory_terms, memory_partition_terms, memory_partitions, memory_cells, journal, api_keys, oauth_clients, oauth_codes, oauth_tokens, oauth_rate_limits',
  );
}
