import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import type { BackfillProgress } from '../../lambda/adapters/pg/schema/backfill.js';
import { migrate } from '../../lambda/adapters/pg/schema/migrate.js';
import { param, sql } from '../../lambda/adapters/pg/sql/template.js';
import { VECTOR_CELLS } from '../../lambda/memory/policy/ranking.js';

/**
 * Migration 0022 on a database that already holds partitions (decision 0118): the ones the
 * sweeper's walk read before (at least `VECTOR_CELLS.from` memories, or cells) are marked, in
 * batches, and no other; the marked partitions' index is there and valid.
 */
describe('partitions marked for cells, on an upgraded database', () => {
  const folder = mkdtempSync(join(tmpdir(), 'naaba-cells-due-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  test('the partitions of the size for cells or with cells are marked, a batch at a time', async () => {
    const shipped = readdirSync('sql/postgres').filter((f) => /^\d{4}_/.test(f));
    expect(shipped).toContain('0022_cells_due.sql');
    for (const file of shipped.filter((f) => f < '0022')) cpSync(join('sql/postgres', file), join(folder, 'postgres', file));
    const db = await PgliteSqlClient.open();
    try {
      const source = pathToFileURL(`${folder}/`);
      await migrate(db, { embeddingDimensions: 3, source });
      const from = VECTOR_CELLS.from;
      const partitions: [string, number, number | null, boolean][] = [
        ['at the size', from, null, true],
        ['past it', from + 500, null, true],
        ['one short', from - 1, null, false],
        ['small with cells', 10, from, true],
        ['small', 10, null, false],
        ['user row', 0, null, false],
      ];
      for (const [name, memories, cellsFor] of partitions) {
        await db.query(sql`INSERT INTO memory_partitions (region, user_id, kind, memories, cells_for)
           VALUES ('eu-central-1', gen_random_uuid(), ${param('kind', name === 'user row' ? '' : name)}, ${param('memories', memories)}, ${param('cellsFor', cellsFor)})`);
      }

      cpSync(join('sql/postgres', '0022_cells_due.sql'), join(folder, 'postgres', '0022_cells_due.sql'));
      const heard: BackfillProgress[] = [];
      // Batches of two: three marked rows take two batches, and a third finds none left.
      expect(await migrate(db, { embeddingDimensions: 3, source, batchRows: 2, progress: (p) => heard.push(p) })).toEqual([
        '0022_cells_due.sql',
      ]);
      expect(heard.at(-1)).toMatchObject({ rows: 3, batches: 2, done: true });

      const rows = await db.query<{ kind: string; cells_due: boolean }>(
        sql`SELECT kind, cells_due FROM memory_partitions ORDER BY kind`,
      );
      const wanted = partitions.map(([name, , , due]) => ({ kind: name === 'user row' ? '' : name, cells_due: due }));
      expect(rows).toEqual(wanted.sort((a, b) => (a.kind < b.kind ? -1 : 1)));
      const [index] = await db.query<{ valid: boolean; predicate: string }>(
        sql`SELECT i.indisvalid AS valid, pg_get_expr(i.indpred, i.indrelid) AS predicate
              FROM pg_index AS i JOIN pg_class AS c ON c.oid = i.indexrelid WHERE c.relname = 'memory_partitions_cells_due'`,
      );
      expect(index).toEqual({ valid: true, predicate: 'cells_due' });
    } finally {
      await db.close();
    }
  }, 120_000);
});
