import { randomUUID } from 'node:crypto';
import type { SqlMemoryStore } from '../../lambda/adapters/pg/memory-store.js';
import type { CountingSqlClient, SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import { FUSION, LEXICAL } from '../../lambda/memory/ranking.js';
import { DEFAULT_RULES } from '../../lambda/memory/rules.js';
import { type SweepOptions, Sweeper } from '../../lambda/memory/sweeper.js';
import type { RecalledMemory } from '../../lambda/memory/model.js';
import type { Scope } from '../../lambda/ports/memory-store.js';
import { ManualClock } from '../support/clock.js';
import { axis, lean } from '../support/vectors.js';

/**
 * The vector arm's cells (decision 0083) on every engine the conformance suite runs on: on
 * PostgreSQL and PGlite the sweeper builds them for a partition past a size, recall reads the
 * nearest of them and every memory without one, and they follow the partition as it grows,
 * shrinks or is forgotten; CockroachDB has none (its vector index reads by prefix).
 */
export interface CellsSuiteContext {
  readonly sql: SqlClient;
  readonly counted: CountingSqlClient;
  readonly store: SqlMemoryStore;
  readonly alice: Scope;
}

const T0 = new Date('2026-03-01T00:00:00Z');
const analyzer = new LexicalAnalyzer();
/** Small sizes, so that a test's partition is "large": cells from 40 memories, three refinements. */
const SWEEP: SweepOptions = { batchSize: 50, maxBatches: 20, cells: { from: 40, rounds: 3 } };
const FACT = [{ kind: 'fact', expiredBefore: null }];

/** Memory `i` of cluster `c`: near axis `c`, each leaning towards an axis of its own. */
const member = (c: number, i: number) => ({ content: `cluster ${c} member ${i}`, embedding: lean(c, 20 + i, 0.35) });

export function cellsStoreTests(context: () => CellsSuiteContext): void {
  const sweep = () => new Sweeper(context().store, DEFAULT_RULES, new ManualClock(T0.getTime())).run('eu-central-1', SWEEP);
  const onCockroach = () => context().sql.engine === 'cockroach';
  /** True on CockroachDB, saying why the test has nothing to check there. */
  const noCells = () => {
    if (!onCockroach()) return false;
    console.log('CockroachDB keeps no vector cells (decision 0083): nothing to check here; the first test covers it');
    return true;
  };

  /** `n` memories per cluster for clusters 0 to 3, loaded at once as a bulk user's are. */
  const load = async (n: number, from = 0) => {
    const memories = [0, 1, 2, 3].flatMap((c) =>
      Array.from({ length: n }, (_, k) => {
        const m = member(c, from + k);
        return { id: randomUUID(), ...m, fingerprint: m.content, frequencies: analyzer.frequencies(m.content) };
      }),
    );
    await context().store.load({
      scope: context().alice,
      kind: 'fact',
      expires: false,
      at: T0,
      agent: 'agent-a',
      client: 'tests/1',
      memories,
    });
    return memories.map((m) => m.id);
  };
  /** One memory remembered as a call does: with no cell until a sweep places it. */
  const remember = (content: string, embedding: number[]) =>
    context().store.insert(
      {
        scope: context().alice,
        id: randomUUID(),
        kind: 'fact',
        content,
        fingerprint: content,
        embedding,
        terms: analyzer.terms(content),
        pinned: false,
        source: { agent: 'agent-a', client: 'tests/1', origin: null, at: T0 },
        conflictsWith: undefined,
        ceiling: 100,
        pinLimit: 10,
        sourcesKept: 3,
        expiredBefore: null,
      },
      T0,
    );
  /** A vector-only recall reading `share` of the partition's cells. */
  const nearest = (embedding: number[], share: number, limit = 10): Promise<RecalledMemory[]> =>
    context().store.recall({
      scope: context().alice,
      embedding,
      terms: [],
      fusion: { ...FUSION, depth: Math.max(limit, FUSION.depth), following: 0, cellsProbed: share },
      lexical: LEXICAL,
      kinds: FACT,
      limit,
      candidates: Math.max(limit, FUSION.depth),
      now: T0,
    });
  const cellsOf = async () => {
    const rows = await context().sql.query<{ cell: number | null }>(
      'SELECT cell FROM memories WHERE user_id = $1::uuid ORDER BY cell',
      [context().alice.userId],
    );
    const cells = await context().sql.query<{ cell: number; ready: boolean }>(
      'SELECT cell, ready FROM memory_cells ORDER BY cell',
    );
    const [partition] = await context().sql.query<{ cells_for: number | null }>(
      "SELECT cells_for FROM memory_partitions WHERE user_id = $1::uuid AND kind = 'fact'",
      [context().alice.userId],
    );
    return { placed: rows.map((r) => r.cell), cells, cellsFor: partition?.cells_for ?? null };
  };
  /** Every memory is in a ready cell or in none, and nothing but ready cells is left. */
  const consistent = async () => {
    const { placed, cells } = await cellsOf();
    const ready = new Set(cells.filter((c) => c.ready).map((c) => c.cell));
    return placed.every((cell) => cell === null || ready.has(cell)) && cells.every((c) => c.ready);
  };

  test('CockroachDB keeps no cells: its vector index reads a partition by its prefix', async () => {
    await load(15);
    const partitions = await context().store.cellPartitions('eu-central-1', 40, 50);
    if (onCockroach()) {
      expect(partitions).toEqual([]);
      expect((await sweep()).cells).toEqual({ built: 0, dropped: 0, placed: 0 });
    } else {
      expect(partitions).toEqual([{ userId: context().alice.userId, kind: 'fact', memories: 60, cellsFor: null }]);
    }
    expect((await nearest(axis(0), 1 / 8)).length).toBe(10);
  });

  describe('PostgreSQL and PGlite', () => {
    test('a sweep gives a partition past the size its cells, and recall reads the nearest ones in one round trip', async () => {
      if (noCells()) return;
      await load(16);
      const exact = await nearest(axis(0), 1, 64);
      expect(exact).toHaveLength(64);

      expect((await sweep()).cells).toEqual({ built: 1, dropped: 0, placed: 0 });
      const { placed, cells, cellsFor } = await cellsOf();
      expect(cells).toHaveLength(8); // √64
      expect(cells.every((c) => c.ready)).toBe(true);
      expect(placed.filter((c) => c === null)).toEqual([]);
      expect(cellsFor).toBe(64);

      // Every cell read: the exact arm again.
      expect((await nearest(axis(0), 1, 64)).map((m) => m.id)).toEqual(exact.map((m) => m.id));
      // One cell of eight: the memories of the cell nearest the query, nearest first as the exact arm has them.
      const counted = context().counted;
      counted.roundTrips = 0;
      const probed = await nearest(axis(0), 1 / 8, 64);
      expect(counted.roundTrips).toBe(1);
      const inCell = await context().sql.query<{ id: string }>(
        `SELECT m.id::text AS id FROM memories AS m
          WHERE m.cell = (SELECT c.cell FROM memory_cells AS c ORDER BY c.centroid <=> $1::vector, c.cell LIMIT 1)`,
        [`[${axis(0).join(',')}]`],
      );
      expect(probed.length).toBeGreaterThan(0);
      expect(probed.length).toBeLessThan(64);
      expect(probed.some((m) => m.content.startsWith('cluster 0 '))).toBe(true);
      expect(probed.map((m) => m.id)).toEqual(exact.map((m) => m.id).filter((id) => inCell.some((r) => r.id === id)));
    });

    test('what is written after a build has no cell and is read whole, until the next sweep places it', async () => {
      if (noCells()) return;
      await load(16);
      await sweep();
      const late = await remember('written after the cells', axis(9));
      expect(late.status).toBe('inserted');
      expect((await cellsOf()).placed.filter((c) => c === null)).toHaveLength(1);
      const [first] = await nearest(axis(9), 1 / 8);
      expect(first?.content).toBe('written after the cells');

      expect((await sweep()).cells).toEqual({ built: 0, dropped: 0, placed: 1 });
      expect((await cellsOf()).placed.filter((c) => c === null)).toEqual([]);
      expect(await consistent()).toBe(true);
      expect((await sweep()).cells).toEqual({ built: 0, dropped: 0, placed: 0 });
    });

    test('a partition that doubles gets its cells anew; one that halves below the size loses them', async () => {
      if (noCells()) return;
      await load(16);
      await sweep();
      const before = (await cellsOf()).cells.map((c) => c.cell);
      await load(16, 16);

      expect((await sweep()).cells).toEqual({ built: 1, dropped: 0, placed: 0 });
      const grown = await cellsOf();
      expect(grown.cellsFor).toBe(128);
      expect(grown.cells).toHaveLength(11); // √128, numbered after the old ones
      expect(Math.min(...grown.cells.map((c) => c.cell))).toBeGreaterThan(Math.max(...before));
      expect(await consistent()).toBe(true);

      // Down to 30 of 128: under half, and under the size that pays for cells.
      const rest = await context().sql.query<{ id: string }>('SELECT id::text AS id FROM memories ORDER BY id');
      await context().store.forgetIds(
        context().alice,
        rest.slice(30).map((r) => r.id),
        [],
      );
      expect((await sweep()).cells).toEqual({ built: 0, dropped: 1, placed: 0 });
      const shrunk = await cellsOf();
      expect(shrunk).toEqual({ placed: Array(30).fill(null), cells: [], cellsFor: null });
      expect(await nearest(axis(1), 1 / 8)).toHaveLength(10);
    });

    test('a forgotten memory leaves the centroids at the next sweep; a cell left empty goes', async () => {
      if (noCells()) return;
      await load(16);
      await sweep();
      const [emptied] = await context().sql.query<{ cell: number }>('SELECT cell FROM memory_cells ORDER BY cell LIMIT 1');
      const gone = await context().sql.query<{ id: string }>('SELECT id::text AS id FROM memories WHERE cell = $1', [
        emptied?.cell,
      ]);
      // One memory of another cell that keeps others: that cell stays, its centroid moves.
      const [other] = await context().sql.query<{ id: string }>(
        `SELECT id::text AS id FROM memories
          WHERE cell = (SELECT cell FROM memories WHERE cell <> $1 GROUP BY cell HAVING count(*) >= 2 ORDER BY cell LIMIT 1)
          LIMIT 1`,
        [emptied?.cell],
      );
      await context().store.forgetIds(context().alice, [...gone.map((r) => r.id), other?.id ?? ''], []);

      expect((await sweep()).cells).toEqual({ built: 0, dropped: 0, placed: 0 });
      const cells = (await cellsOf()).cells.map((c) => c.cell);
      expect(cells).toHaveLength(7);
      expect(cells).not.toContain(emptied?.cell);
      // Each centroid is now the mean of the vectors its cell still holds.
      const drift = await context().sql.query<{ drift: number }>(
        `SELECT c.centroid <=> avg(m.embedding) AS drift
           FROM memory_cells AS c JOIN memories AS m ON m.cell = c.cell AND m.user_id = c.user_id
          GROUP BY c.cell, c.centroid`,
      );
      expect(drift).toHaveLength(7);
      for (const { drift: d } of drift) expect(Number(d)).toBeLessThan(1e-6);
    });

    test('forgetting everything takes the cells with the memories: they are means of their vectors', async () => {
      if (noCells()) return;
      await load(16);
      await sweep();
      expect((await cellsOf()).cells).toHaveLength(8);

      await context().store.forgetAll(context().alice, undefined, []);
      expect((await cellsOf()).cells).toEqual([]);
    });

    test('recalls and remembers while the cells are built: every call succeeds, and nothing written is missed', async () => {
      if (noCells()) return;
      await load(16);
      const writes = Array.from({ length: 8 }, (_, i) => ({
        content: `written during the build ${i}`,
        embedding: lean(i % 4, 200 + i, 0.2),
      }));
      const [report] = await Promise.all([
        sweep(),
        ...Array.from({ length: 12 }, (_, i) => nearest(axis(i % 4), 1 / 8)),
        ...writes.map((w) => remember(w.content, w.embedding)),
      ]);

      expect(report.cells.built).toBe(1);
      expect(await consistent()).toBe(true);
      // Each write is found by a recall of its own vector reading one cell: in that cell, or in none yet.
      for (const w of writes) expect((await nearest(w.embedding, 1 / 8, 1))[0]?.content).toBe(w.content);
    });

    test('two sweeps at once: one builds, and every memory is in a ready cell', async () => {
      if (noCells()) return;
      await load(16);
      const reports = await Promise.all([sweep(), sweep()]);

      expect(reports.map((r) => r.cells.built).sort()).toEqual([0, 1]);
      expect(await consistent()).toBe(true);
      expect((await cellsOf()).placed.filter((c) => c === null)).toEqual([]);
    });
  });
}
