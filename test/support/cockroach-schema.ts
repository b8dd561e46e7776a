import { readdirSync, readFileSync } from 'node:fs';
import { splitStatements } from '../../lambda/adapters/pg/schema/migrate.js';

/**
 * The tables' keys and indexes as CockroachDB leaves them after some of `sql/cockroach/`'s
 * migrations, read from the DDL (no cluster here): what the unit tests hold the schema to.
 */
const SQL = new URL('../../sql/cockroach/', import.meta.url);

/** Every CockroachDB migration, in order. */
export const FILES = readdirSync(SQL)
  .filter((n) => /^\d{4}_[a-z0-9_]+\.sql$/.test(n))
  .sort();

export interface Index {
  readonly columns: string;
  readonly unique: boolean;
  /** The partial index's predicate, or undefined for every row. */
  readonly where: string | undefined;
  /** Hash-sharded (`USING HASH`): the region, then a shard, lead its keys. */
  readonly hashed: boolean;
}

export interface Table {
  primaryKey: string;
  readonly indexes: Map<string, Index>;
}

const code = (s: string) =>
  s
    .split('\n')
    .filter((l) => !l.trim().startsWith('--'))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();

/** The tables' keys and indexes once the given migrations have run, as CockroachDB would leave them. */
export function schemaAfter(files: readonly string[]): Map<string, Table> {
  const tables = new Map<string, Table>();
  const table = (name: string) => {
    const found = tables.get(name);
    if (!found) throw new Error(`no table ${name}`);
    return found;
  };
  for (const file of files) {
    for (const statement of splitStatements(readFileSync(new URL(file, SQL), 'utf8')).map(code)) {
      if (/\bFAMILY\b/i.test(statement)) throw new Error(`${file}: column families change the count; teach this test`);
      const created = /^CREATE TABLE IF NOT EXISTS (\w+) \((.*)\)( LOCALITY [A-Z ]+(AS \w+)?)?;$/.exec(statement);
      if (created) {
        const [, name = '', body = ''] = created;
        const indexes = new Map<string, Index>();
        const inline = /(UNIQUE INDEX|VECTOR INDEX|INDEX) (\w+) \(([^)]*)\)(?: STORING \([^)]*\))?(?: WHERE ([^,]*))?/g;
        for (const [, kind = '', index = '', columns = '', where] of body.matchAll(inline)) {
          indexes.set(index, { columns, unique: kind === 'UNIQUE INDEX', where: where?.trim(), hashed: false });
        }
        const key = /PRIMARY KEY \(([^)]*)\)/.exec(body)?.[1] ?? /(\w+) \w+ PRIMARY KEY/.exec(body)?.[1];
        if (!key) throw new Error(`${file}: no primary key for ${name}`);
        tables.set(name, { primaryKey: key, indexes });
        continue;
      }
      const index = /^CREATE (UNIQUE |INVERTED )?INDEX IF NOT EXISTS (\w+) ON (\w+) \(([^)]*)\)(.*?)(?: WHERE (.*))?;$/.exec(
        statement,
      );
      if (index) {
        const [, unique, name = '', on = '', columns = '', rest = '', where] = index;
        table(on).indexes.set(name, { columns, unique: unique === 'UNIQUE ', where, hashed: /USING HASH/.test(rest) });
        continue;
      }
      const dropped = /^DROP INDEX IF EXISTS (\w+)@(\w+);$/.exec(statement);
      if (dropped) {
        table(dropped[1] ?? '').indexes.delete(dropped[2] ?? '');
        continue;
      }
      const rekeyed = /^ALTER TABLE (\w+) ALTER PRIMARY KEY USING COLUMNS \(([^)]*)\);$/.exec(statement);
      if (rekeyed) {
        const t = table(rekeyed[1] ?? '');
        // ALTER PRIMARY KEY keeps the old key as a unique index, unless a unique, non-partial index
        // on exactly its columns exists (scbuildstmt/alter_table_alter_primary_key.go).
        const kept = [...t.indexes.values()].some((i) => i.unique && i.where === undefined && i.columns === t.primaryKey);
        if (!kept)
          t.indexes.set(`${rekeyed[1]}_old_key`, { columns: t.primaryKey, unique: true, where: undefined, hashed: false });
        t.primaryKey = rekeyed[2] ?? '';
      }
    }
  }
  return tables;
}
