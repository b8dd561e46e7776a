import { randomUUID } from 'node:crypto';
import { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { params, sql as sqlText } from '../../lambda/adapters/pg/sql/template.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import { type SweepOptions, Sweeper } from '../../lambda/memory/maintenance/sweeper.js';
import type { RecalledMemory, Scope } from '../../lambda/memory/model.js';
import type { ImportedMemory } from '../../lambda/ports/transfer-store.js';
import { NO_FLOOR } from '../../lambda/memory/policy/floor.js';
import { DEFAULT_RULES } from '../../lambda/memory/policy/kinds.js';
import { FUSION, LEXICAL } from '../../lambda/memory/policy/ranking.js';
import { type StoreHarness, SUITE_CELLS } from './harness.js';
import { ManualClock } from '../support/clock.js';
import { axis, lean } from '../support/vectors.js';

/**
 * The vector arm's cells (decision 0083) on every engine the conformance suite runs on: on
 * PostgreSQL and PGlite the sweeper builds them for a partition past a size, recall reads the
 * nearest of them and every memory without one, and they follow the partition as it grows,
 * shrinks or is forgotten; CockroachDB has none (its vector index reads by prefix).
 */
export interface CellsSuiteContext {
  readonly harness: StoreHarness;
  readonly alice: Scope;
}

const T0 = new Date('2026-03-01T00:00:00Z');
const analyzer = new LexicalAnalyzer();
/** Small sizes, so that a test's partition is "large": cells from 40 memories (as the stores mark), three refinements. */
const SWEEP: SweepOptions = { batchSize: 50, maxBatches: 20, cells: { from: SUITE_CELLS.from, rounds: 3 } };
const FACT = [{ kind: 'fact', expiredBefore: null }];
/** A row bound past any test partition's size: recall reads every cell, the exact arm. */
const EVERY_CELL = 1_000_000;

/** Memory `i` of cluster `c`: near axis `c`, each leaning towards an axis of its own. */
const member = (c: number, i: number) => ({ content: `cluster ${c} member ${i}`, embedding: lean(c, 20 + i, 0.35) });

export function cellsStoreTests(context: () => CellsSuiteContext): void {
  const stores = () => context().harness.stores;
  /** The SQL engines' client: only they keep cells (the suite runs this part on them only). */
  const sql = (): SqlClient => {
    const client = context().harness.sql;
    if (!client) throw new Error('the cells tests run on SQL engines only');
    return client;
  };
  const sweep = () =>
    new Sweeper(stores().maintenance, DEFAULT_RULES, new ManualClock(T0.getTime()), analyzer).run('eu-central-1', SWEEP);
  const onCockroach = () => sql().engine === 'cockroach';
  /** True on CockroachDB, saying why the test has nothing to check there. */
  const noCells = () => {
    if (!onCockroach()) return false;
    console.log('CockroachDB keeps no vector cells (decision 0083): nothing to check here; the first test covers it');
    return true;
  };

  /** `n` memories per cluster for clusters 0 to 3, loaded at once as a bulk user's are (alice's unless told). */
  const load = async (n: number, from = 0, scope: Scope = context().alice) => {
    const memories = [0, 1, 2, 3].flatMap((c) =>
      Array.from({ length: n }, (_, k) => {
        const m = member(c, from + k);
        return { id: randomUUID(), ...m, fingerprint: m.content, frequencies: analyzer.frequencies(m.content) };
      }),
    );
    await stores().transfer.load({
      scope,
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
    stores().curation.insert(
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
  /** `n` memories per cluster for clusters 0 to 3, imported in one step as a user's export file is. */
  const importInto = async (scope: Scope, n: number, from = 0) => {
    const memories = [0, 1, 2, 3].flatMap((c) =>
      Array.from({ length: n }, (_, k): ImportedMemory => {
        const m = member(c, from + k);
        return {
          id: randomUUID(),
          kind: 'fact',
          ...m,
          fingerprint: m.content,
          frequencies: analyzer.frequencies(m.content),
          pinned: false,
          expires: false,
          createdAt: T0,
          lastUsefulAt: T0,
          recallCount: 0,
          restatements: 0,
          source: { agent: 'agent-a', client: 'tests/1', origin: null },
          restatedBy: [],
        };
      }),
    );
    const result = await stores().transfer.importMemories({
      scope,
      kinds: [{ kind: 'fact', expiredBefore: null, ceiling: 100 }],
      pinLimit: 10,
      memories,
      links: [],
      journal: [],
    });
    expect(result.status).toBe('imported');
  };
  /** The partitions the sweeper's walk reads (decision 0118), with their sizes. */
  const marked = async () =>
    (await stores().maintenance.cellPartitions('eu-central-1', 50)).map((p) => ({ user: p.userId, memories: p.memories }));
  /** A vector-only recall reading the nearest cells until `rows` memories are read before the next (1: the nearest cell alone). */
  const nearest = (embedding: number[], rows: number, limit = 10): Promise<RecalledMemory[]> =>
    stores().curation.recall({
      scope: context().alice,
      embedding,
      terms: [],
      fusion: { ...FUSION, depth: Math.max(limit, FUSION.depth), following: 0, cellRows: rows },
      lexical: LEXICAL,
      farthest: NO_FLOOR,
      kinds: FACT,
      limit,
      candidates: Math.max(limit, FUSION.depth),
      now: T0,
    });
  const cellsOf = async () => {
    const p = params({ user: context().alice.userId });
    const rows = await sql().query<{ cell: number | null }>(
      sqlText`SELECT cell FROM memories WHERE user_id = ${p.user}::uuid ORDER BY cell`,
    );
    const cells = await sql().query<{ cell: number; ready: boolean }>(
      sqlText`SELECT cell, ready FROM memory_cells ORDER BY cell`,
    );
    const [partition] = await sql().query<{ cells_for: number | null }>(
      sqlText`SELECT cells_for FROM memory_partitions WHERE user_id = ${p.user}::uuid AND kind = 'fact'`,
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
    const partitions = await stores().maintenance.cellPartitions('eu-central-1', 50);
    if (onCockroach()) {
      expect(partitions).toEqual([]);
      expect((await sweep()).cells).toEqual({ built: 0, dropped: 0, placed: 0 });
    } else {
      expect(partitions).toEqual([{ userId: context().alice.userId, kind: 'fact', memories: 60, cellsFor: null }]);
    }
    expect((await nearest(axis(0), 1)).length).toBe(10);
  });

  describe('PostgreSQL and PGlite', () => {
    test('a sweep gives a partition past the size its cells, and recall reads the nearest ones in one round trip', async () => {
      if (noCells()) return;
      await load(16);
      const exact = await nearest(axis(0), EVERY_CELL, 64);
      expect(exact).toHaveLength(64);

      expect((await sweep()).cells).toEqual({ built: 1, dropped: 0, placed: 0 });
      const { placed, cells, cellsFor } = await cellsOf();
      expect(cells).toHaveLength(8); // √64
      expect(cells.every((c) => c.ready)).toBe(true);
      expect(placed.filter((c) => c === null)).toEqual([]);
      expect(cellsFor).toBe(64);

      // Every cell read: the exact arm again.
      expect((await nearest(axis(0), EVERY_CELL, 64)).map((m) => m.id)).toEqual(exact.map((m) => m.id));
      // A bound of one memory: the cell nearest the query alone, its memories nearest first as the exact arm has them.
      const { roundTrips } = context().harness;
      roundTrips.count = 0;
      const probed = await nearest(axis(0), 1, 64);
      expect(roundTrips.count).toBe(1);
      const query = params({ vector: `[${axis(0).join(',')}]` });
      const inCell = await sql().query<{ id: string }>(
        sqlText`SELECT m.id::text AS id FROM memories AS m
          WHERE m.cell = (SELECT c.cell FROM memory_cells AS c ORDER BY c.centroid <=> ${query.vector}::vector, c.cell LIMIT 1)`,
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
      const [first] = await nearest(axis(9), 1);
      expect(first?.content).toBe('written after the cells');

      expect((await sweep()).cells).toEqual({ built: 0, dropped: 0, placed: 1 });
      expect((await cellsOf()).placed.filter((c) => c === null)).toEqual([]);
      expect(await consistent()).toBe(true);
      expect((await sweep()).cells).toEqual({ built: 0, dropped: 0, placed: 0 });
    });

    test('a memory the lexical arm finds in a cell not read is ranked by the vector arm too, as in the exact arm', async () => {
      if (noCells()) return;
      await load(16);
      await sweep();
      // Near axis 0, in words only one memory of cluster 3 (far from the query, in a cell not read) holds.
      const hybrid = (rows: number) =>
        stores().curation.recall({
          scope: context().alice,
          embedding: axis(0),
          terms: analyzer.terms('cluster 3 member 5'),
          // Every memory ranked by the exact arm: clusters 1 to 3 lie at one distance from axis 0, ties broken by random ids.
          fusion: { ...FUSION, depth: 64, following: 0, cellRows: rows },
          lexical: LEXICAL,
          farthest: NO_FLOOR,
          kinds: FACT,
          limit: 10,
          candidates: 64,
          now: T0,
        });
      const far = async (rows: number) => (await hybrid(rows)).find((m) => m.content === 'cluster 3 member 5');
      const exact = await far(EVERY_CELL);
      const probed = await far(1);
      // First in the lexical arm, which alone gives 1 / (k + 1): the vector arm's part is there too, as in the exact arm.
      expect(exact?.score).toBeGreaterThan(FUSION.lexicalWeight / (FUSION.k + 1));
      expect(probed?.score).toBeGreaterThan(FUSION.lexicalWeight / (FUSION.k + 1));
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
      // Up to √128 = 11: three more, numbered after the old ones (a cell k-means left empty goes).
      expect(grown.cells.length).toBeLessThanOrEqual(11);
      expect(grown.cells.filter((c) => c.cell > Math.max(...before)).length).toBeGreaterThan(0);
      expect(grown.placed.filter((c) => c === null)).toEqual([]);
      expect(await consistent()).toBe(true);

      // Down to 30 of 128: under half, and under the size that pays for cells.
      const rest = await sql().query<{ id: string }>(sqlText`SELECT id::text AS id FROM memories ORDER BY id`);
      await stores().curation.forgetIds(
        context().alice,
        rest.slice(30).map((r) => r.id),
        [],
      );
      expect((await sweep()).cells).toEqual({ built: 0, dropped: 1, placed: 0 });
      const shrunk = await cellsOf();
      expect(shrunk).toEqual({ placed: Array(30).fill(null), cells: [], cellsFor: null });
      expect(await nearest(axis(1), 1)).toHaveLength(10);
      // Without cells and under the size: off the sweeper's walk (decision 0118).
      expect(await marked()).toEqual([]);
    });

    test('a partition a remember brings to the size is marked, and the next sweep builds its cells', async () => {
      if (noCells()) return;
      await load(9);
      expect(await marked()).toEqual([]);
      expect((await sweep()).cells).toEqual({ built: 0, dropped: 0, placed: 0 });

      for (let i = 0; i < 4; i += 1) expect((await remember(`remembered ${i}`, lean(i, 100 + i, 0.35))).status).toBe('inserted');
      expect(await marked()).toEqual([{ user: context().alice.userId, memories: 40 }]);
      expect((await sweep()).cells).toEqual({ built: 1, dropped: 0, placed: 0 });
      expect((await cellsOf()).cellsFor).toBe(40);
      expect(await consistent()).toBe(true);
    });

    test('an import marks the partitions it brings to the size, new or grown, and the next sweep builds their cells', async () => {
      if (noCells()) return;
      const bob = { region: 'eu-central-1', userId: randomUUID() };
      await load(9);
      await importInto(bob, 9);
      expect(await marked()).toEqual([]);

      // Alice's partition grows from 36 to 44 (the row is there: the update marks it); Bob's gets 40 at once (the insert marks it).
      await importInto(context().alice, 2, 9);
      await importInto({ ...bob, userId: randomUUID() }, 10);
      expect((await marked()).map((p) => p.memories).sort()).toEqual([40, 44]);
      expect((await sweep()).cells).toEqual({ built: 2, dropped: 0, placed: 0 });
      expect((await cellsOf()).cellsFor).toBe(44);
    });

    test('a marked partition that shrinks under the size without cells leaves the walk, and comes back when it grows again', async () => {
      if (noCells()) return;
      const ids = await load(10);
      expect(await marked()).toEqual([{ user: context().alice.userId, memories: 40 }]);
      // A forget never unmarks: the sweeper does.
      await stores().curation.forgetIds(context().alice, ids.slice(0, 5), []);
      expect(await marked()).toEqual([{ user: context().alice.userId, memories: 35 }]);

      expect((await sweep()).cells).toEqual({ built: 0, dropped: 0, placed: 0 });
      expect(await marked()).toEqual([]);
      expect((await cellsOf()).cells).toEqual([]);

      for (let i = 0; i < 5; i += 1) await remember(`back ${i}`, lean(i % 4, 140 + i, 0.35));
      expect(await marked()).toEqual([{ user: context().alice.userId, memories: 40 }]);
      expect((await sweep()).cells).toEqual({ built: 1, dropped: 0, placed: 0 });
    });

    test('a page of the walk holds marked partitions only, however many small ones come first in key order', async () => {
      if (noCells()) return;
      // Thirty users whose ids sort first, one small partition each; alice's past the size.
      for (let u = 0; u < 30; u += 1) {
        await load(1, 0, { region: 'eu-central-1', userId: `00000000-0000-4000-8000-${String(u).padStart(12, '0')}` });
      }
      await load(10);
      const page = await stores().maintenance.cellPartitions('eu-central-1', 1);
      expect(page).toEqual([{ userId: context().alice.userId, kind: 'fact', memories: 40, cellsFor: null }]);
      expect(await stores().maintenance.cellPartitions('eu-central-1', 1, page[0])).toEqual([]);
    });

    test('a remember that leaves the mark as it was updates the partition row in place (HOT): only the one that marks it writes an index', async () => {
      if (noCells()) return;
      if (!(sql() instanceof PgliteSqlClient)) {
        // Other sessions' counts reach pg_stat only when they flush them, on a timer: only PGlite's one session can be read exactly.
        console.log(
          'HOT update counts are read exactly on PGlite only (one session); PostgreSQL flushes other sessions on a timer',
        );
        return;
      }
      const counts = async () => {
        await sql().exec('SELECT pg_stat_force_next_flush()');
        const [row] = await sql().query<{ updated: string; hot: string }>(
          sqlText`SELECT n_tup_upd::text AS updated, n_tup_hot_upd::text AS hot FROM pg_stat_user_tables WHERE relname = 'memory_partitions'`,
        );
        return { updated: Number(row?.updated), notHot: Number(row?.updated) - Number(row?.hot) };
      };
      await load(9);
      const before = await counts();
      // From 36 to 42: the fourth reaches 40 and marks the partition.
      for (let i = 0; i < 6; i += 1) await remember(`counted ${i}`, lean(i % 4, 160 + i, 0.35));
      const after = await counts();

      expect(after.updated - before.updated).toBeGreaterThanOrEqual(6);
      expect(after.notHot - before.notHot).toBe(1);
      expect(await marked()).toEqual([{ user: context().alice.userId, memories: 42 }]);
    });

    test('a forgotten memory leaves the centroids at the next sweep; a cell left empty goes', async () => {
      if (noCells()) return;
      await load(16);
      await sweep();
      // A second sweep refreshes the centroids the build's last moves left, and removes a cell they emptied.
      await sweep();
      const kept = (await cellsOf()).cells.length;
      // The smallest cell: forgetting it never halves the partition (which would drop its cells).
      const [emptied] = await sql().query<{ cell: number }>(
        sqlText`SELECT cell FROM memory_cells ORDER BY members, cell LIMIT 1`,
      );
      const p = params({ cell: emptied?.cell ?? -1 });
      const gone = await sql().query<{ id: string }>(sqlText`SELECT id::text AS id FROM memories WHERE cell = ${p.cell}`);
      // One memory of another cell that keeps others: that cell stays, its centroid moves.
      const [other] = await sql().query<{ id: string }>(
        sqlText`SELECT id::text AS id FROM memories
          WHERE cell = (SELECT cell FROM memories WHERE cell <> ${p.cell} GROUP BY cell HAVING count(*) >= 2 ORDER BY cell LIMIT 1)
          LIMIT 1`,
      );
      await stores().curation.forgetIds(context().alice, [...gone.map((r) => r.id), other?.id ?? ''], []);

      expect((await sweep()).cells).toEqual({ built: 0, dropped: 0, placed: 0 });
      const cells = (await cellsOf()).cells.map((c) => c.cell);
      expect(cells).toHaveLength(kept - 1);
      expect(cells).not.toContain(emptied?.cell);
      // Each centroid is now the mean of the vectors its cell still holds.
      const drift = await sql().query<{ drift: number }>(
        sqlText`SELECT c.centroid <=> avg(m.embedding) AS drift
           FROM memory_cells AS c JOIN memories AS m ON m.cell = c.cell AND m.user_id = c.user_id
          GROUP BY c.cell, c.centroid`,
      );
      expect(drift).toHaveLength(kept - 1);
      for (const { drift: d } of drift) expect(Number(d)).toBeLessThan(1e-6);
    });

    test('forgetting everything takes the cells with the memories: they are means of their vectors', async () => {
      if (noCells()) return;
      await load(16);
      await sweep();
      expect((await cellsOf()).cells).toHaveLength(8);

      await stores().curation.forgetAll(context().alice, undefined, []);
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
        ...Array.from({ length: 12 }, (_, i) => nearest(axis(i % 4), 1)),
        ...writes.map((w) => remember(w.content, w.embedding)),
      ]);

      expect(report.cells.built).toBe(1);
      expect(await consistent()).toBe(true);
      // Each write is found by a recall of its own vector reading one cell: in that cell, or in none yet.
      for (const w of writes) expect((await nearest(w.embedding, 1, 1))[0]?.content).toBe(w.content);
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
