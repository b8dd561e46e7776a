import { readdir, readFile } from 'node:fs/promises';
import type { SqlClient, SqlEngine } from './sql-client.js';

/** Where the migrations live: `sql/<engine>/NNNN_name.sql` at the repository root. */
const SQL_ROOT = new URL('../../../sql/', import.meta.url);

export interface MigrationSettings {
  readonly embeddingDimensions: number;
}

async function migrationFiles(engine: SqlEngine): Promise<string[]> {
  const names = await readdir(new URL(`${engine}/`, SQL_ROOT));
  return names.filter((n) => /^\d{4}_[a-z0-9_]+\.sql$/.test(n)).sort();
}

function render(script: string, settings: MigrationSettings): string {
  return script.replaceAll('{{embedding_dimensions}}', String(settings.embeddingDimensions));
}

/** Applies the engine's migrations not yet applied, each in its own transaction; returns their names. */
export async function migrate(db: SqlClient, settings: MigrationSettings): Promise<string[]> {
  await db.exec('CREATE TABLE IF NOT EXISTS naaba_migrations (version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)');
  const done = new Set((await db.query<{ version: string }>('SELECT version FROM naaba_migrations')).map((r) => r.version));
  const applied: string[] = [];
  for (const file of await migrationFiles(db.engine)) {
    if (done.has(file)) continue;
    const script = render(await readFile(new URL(`${db.engine}/${file}`, SQL_ROOT), 'utf8'), settings);
    await db.exec(`BEGIN;\n${script}\nINSERT INTO naaba_migrations (version, applied_at) VALUES ('${file}', now());\nCOMMIT;`);
    applied.push(file);
  }
  return applied;
}
