import pg from 'pg';
import { VECTOR_CELLS } from '../../lambda/memory/policy/ranking.js';
import { postgresForTests } from '../support/pg-server.js';
import { kvCounts, NotScratchError, runEngineBench } from '../../bench/engine-lib.js';

/**
 * `npm run bench:engine`'s core with tiny sizes on a throwaway PostgreSQL, so that what a user with
 * a CockroachDB cluster runs cannot rot; the KV counting, which needs CockroachDB, on trace lines
 * of the forms CockroachDB prints.
 */

test('KV counts add up the batches the DistSender sent, per request and range, and the SQL layer’s own lines', () => {
  // Forms as in cockroachdb/cockroach pkg/sql/opt/exec/execbuilder/testdata/show_trace.
  const lines = [
    'Scan /Table/109/{1-2} lock Exclusive (Block, Unreplicated)',
    'fetched: /kv2/kv2_pkey/-9222809086901354496/k/v -> /1/2',
    'CPut /Table/108/1/1/0 -> /TUPLE/2:2:Int/2',
    'Del /Table/108/2/2/0',
    'r63: sending batch 1 CPut, 1 EndTxn to (n1,s1):1',
    'r42: sending batch 2 Put, 1 Scan, 1 Get to (n1,s1):1',
    'r42: sending batch 1 DelRange to (n1,s1):1',
    'querying next range at /Table/60/1/1/0',
  ];
  expect(kvCounts(lines)).toEqual({ writes: 4, reads: 2, ranges: 2, rowWrites: 2, fetched: 1 });
  expect(kvCounts([])).toEqual({ writes: 0, reads: 0, ranges: 0, rowWrites: 0, fetched: 0 });
});

const server = await postgresForTests('bench:engine on a throwaway PostgreSQL');

if (server) {
  afterAll(async () => server.stop());
  console.log(
    'bench:engine: KV counts on a live cluster not run here: they need CockroachDB (npm run bench:engine -- --url URL)',
  );

  test('on a scratch database: statements within budget, every size recalled, exact overlap where there are no cells, no busy writer, emptied after', async () => {
    const lines: string[] = [];
    const sizes = [40, 120];
    const figures = await runEngineBench({
      url: server.url,
      sizes,
      queries: 4,
      overlapQueries: 3,
      rounds: 1,
      writers: 6,
      force: false,
      print: (line) => lines.push(line),
    });
    expect(figures.engine).toBe('postgres');
    expect(figures.calls.length).toBeGreaterThanOrEqual(10);
    for (const call of figures.calls) expect(call.statements).toBeLessThanOrEqual(call.budget);
    expect(figures.kvSkipped).toMatch(/CockroachDB-only/);
    expect(figures.sizes.map((s) => s.size)).toEqual(sizes);
    for (const s of figures.sizes) {
      expect(s.recallP50).toBeGreaterThan(0);
      // Below VECTOR_CELLS.from a partition has no cells: the vector arm is exact, and so must agree with the client's arithmetic.
      expect(s.size).toBeLessThan(VECTOR_CELLS.from);
      expect(s.overlap).toBe(1);
      expect(s.overlapEveryCell).toBe(1);
    }
    expect(figures.contention.map((f) => f.scenario)).toEqual(['one-partition', 'many-users', 'restatements']);
    for (const round of figures.contention) {
      expect(round).toMatchObject({ calls: 6, succeeded: 6, busy: 0, failed: 0, violations: [] });
    }
    expect(lines.some((l) => l.includes('recall 4 of 4 per size'))).toBe(true);
    expect(lines.at(-1)).toMatch(/emptied the naaba tables again/);

    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM memories');
      expect(rows[0]?.n).toBe(0);
      // A table that is not naaba's: the next run refuses before writing anything.
      await client.query('CREATE TABLE someone_elses (x int)');
      const refused = runEngineBench({
        url: server.url,
        sizes: [5],
        queries: 1,
        overlapQueries: 1,
        rounds: 1,
        writers: 1,
        force: false,
        print: () => {},
      });
      await expect(refused).rejects.toThrow(NotScratchError);
      await expect(refused).rejects.toThrow(/someone_elses.*--force yes/);
    } finally {
      await client.end();
    }
  }, 300_000);
}
