import type { Scope } from '../../../memory/model.js';
import { POSTING_CUT } from '../../../memory/policy/ranking.js';
import type {
  CellBuild,
  CellPartition,
  CellStep,
  MaintenanceStore,
  PassageMasks,
  PassagesPage,
  SweptSuperseded,
} from '../../../ports/maintenance-store.js';
import { ASSIGN_CELLS } from '../statements/maintenance/cells-assign.js';
import { CELLS_BUILT } from '../statements/maintenance/cells-built.js';
import { DROP_CELLS } from '../statements/maintenance/cells-drop.js';
import { LIST_CELLS } from '../statements/maintenance/cells-list.js';
import { CELL_PARTITIONS } from '../statements/maintenance/cells-partitions.js';
import { REFINE_CELLS } from '../statements/maintenance/cells-refine.js';
import { REFRESH_CELLS } from '../statements/maintenance/cells-refresh.js';
import { SEED_CELLS } from '../statements/maintenance/cells-seed.js';
import { UNMARK_CELLS } from '../statements/maintenance/cells-unmark.js';
import { CLEAR_EMPTY_TERMS } from '../statements/maintenance/clear-empty-terms.js';
import { MARK_EXPIRING } from '../statements/maintenance/mark-expiring.js';
import { PASSAGES_PAGE } from '../statements/maintenance/passages-page.js';
import { WRITE_PASSAGES } from '../statements/maintenance/passages-write.js';
import { RANK_POSTINGS } from '../statements/maintenance/rank-postings.js';
import { RECORD_EXPIRING_KINDS } from '../statements/maintenance/record-expiring-kinds.js';
import { STALE_TERMS } from '../statements/maintenance/stale-terms.js';
import { SWEEP_EXPIRED } from '../statements/maintenance/sweep-expired.js';
import { SWEEP_SUPERSEDED } from '../statements/maintenance/sweep-superseded.js';
import { SWEEPER_STATE } from '../statements/maintenance/sweeper-state.js';
import { TRIM_JOURNAL } from '../statements/maintenance/trim-journal.js';
import type { StatementRunner } from './statement-runner.js';

/** Below every user id: where a walk of the partitions in key order starts. */
const NO_USER = '00000000-0000-0000-0000-000000000000';
/** Below every memory id: where a walk of a region's memories in id order starts. */
const NO_ID = NO_USER;
/** Above every memory id: where a walk that reached the end of its region stands. */
const PAST_LAST_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** What a second sweeper seeding one partition's cells meets: the first one's rows. */
const UNIQUE_VIOLATION = '23505';

/** The sweeper's storage over SQL: region-wide work in bounded batches, and the vector cells of large partitions. */
export class SqlMaintenanceStore implements MaintenanceStore {
  constructor(private readonly sql: StatementRunner) {}

  /**
   * Whether the vector arm reads partitions by cells (decision 0083): on PostgreSQL and PGlite,
   * whose vector arm is otherwise exact; CockroachDB's vector index already reads by prefix.
   */
  private get hasCells(): boolean {
    return this.sql.engine !== 'cockroach';
  }

  async sweepExpired(region: string, kind: string, expiredBefore: Date, batch: number, now: Date): Promise<number> {
    const [row] = await this.sql.read(SWEEP_EXPIRED, { region, kind, expiredBefore, batch, now });
    return row?.expired ?? 0;
  }

  async sweepSuperseded(
    region: string,
    kind: string,
    supersededBefore: Date,
    batch: number,
    now: Date,
  ): Promise<SweptSuperseded> {
    const [row] = await this.sql.read(SWEEP_SUPERSEDED, { region, kind, supersededBefore, batch, now });
    return { deleted: row?.superseded ?? 0, settled: row?.settled ?? 0 };
  }

  async trimJournal(region: string, olderThan: Date, batch: number): Promise<number> {
    const [row] = await this.sql.read(TRIM_JOURNAL, { region, olderThan, batch });
    return row?.trimmed ?? 0;
  }

  /** One step of the walk by id, from where the last one stopped (decision 0098); the memories it walked. */
  async markExpiring(region: string, kind: string, batch: number): Promise<number> {
    const entry = `expiring/${kind}`;
    const [row] = await this.sql.read(SWEEPER_STATE, { region, name: entry });
    const after = row?.value ?? NO_ID;
    const [step] = await this.sql.read(MARK_EXPIRING, { region, kind, after, entry, batch });
    return step?.walked ?? 0;
  }

  async expiringKinds(region: string): Promise<string[]> {
    const [row] = await this.sql.read(SWEEPER_STATE, { region, name: 'expiring_kinds' });
    return row?.value ? (JSON.parse(row.value) as string[]) : [];
  }

  async recordExpiringKinds(region: string, kinds: readonly string[]): Promise<void> {
    await this.sql.read(RECORD_EXPIRING_KINDS, { region, kinds: JSON.stringify(kinds) });
  }

  async clearEmptyTerms(region: string, batch: number): Promise<number> {
    return (await this.sql.read(CLEAR_EMPTY_TERMS, { region, batch })).length;
  }

  async rankPostings(region: string, batch: number): Promise<number> {
    const terms = await this.sql.read(STALE_TERMS, { region, batch });
    for (const t of terms) {
      // Its own statement per term, at the default isolation: it fails rather than commit over a
      // concurrent write of the term's statistics row, and the retry ranks what that write left.
      await this.sql.run(RANK_POSTINGS, {
        scope: { region, userId: t.user_id },
        kind: t.kind,
        term: t.term,
        ranked: POSTING_CUT.ranked,
      });
    }
    return terms.length;
  }

  /** Where the region's walk stopped is kept in its `passages` entry of `sweeper_state` (the last id walked). */
  async passagesPage(region: string, batch: number): Promise<PassagesPage> {
    const [stopped] = await this.sql.read(SWEEPER_STATE, { region, name: 'passages' });
    const after = stopped?.value ?? NO_ID;
    if (after === PAST_LAST_ID) return { walked: 0, end: true, finished: true, long: [] };
    const rows = await this.sql.read(PASSAGES_PAGE, { region, after, batch });
    return {
      walked: rows.length,
      last: rows.at(-1)?.id,
      end: rows.length < batch,
      finished: false,
      long: rows.flatMap((r) => (r.content === null ? [] : [{ userId: r.user_id, kind: r.kind, id: r.id, content: r.content }])),
    };
  }

  /**
   * A page's masks a memory per statement (maintenance/passages-write); the last one records where
   * the walk stands, or, when no memory of the page needed masks, one that writes nothing else. A
   * stop between them leaves the walk where it was: the page is walked again, and what was written
   * is not written twice.
   */
  async writePassages(region: string, page: PassagesPage, cut: readonly PassageMasks[]): Promise<number> {
    if (page.finished) return 0;
    // A short page walked the last of the region: the walk stands past it from now on.
    const stands = page.end || page.last === undefined ? PAST_LAST_ID : page.last;
    const none: PassageMasks = { userId: NO_USER, kind: '', id: NO_ID, length: 0, masks: new Map() };
    const memories = cut.length > 0 ? cut : [none];
    let written = 0;
    for (const [i, memory] of memories.entries()) {
      const [row] = await this.sql.read(WRITE_PASSAGES, {
        region,
        userId: memory.userId,
        kind: memory.kind,
        memoryId: memory.id,
        terms: [...memory.masks.keys()],
        masks: JSON.stringify(Object.fromEntries(memory.masks)),
        length: memory.length,
        walked: i === memories.length - 1 ? stands : null,
      });
      written += row?.written ?? 0;
    }
    return written;
  }

  async cellPartitions(region: string, batch: number, after?: CellPartition): Promise<CellPartition[]> {
    if (!this.hasCells) return [];
    const rows = await this.sql.read(CELL_PARTITIONS, {
      region,
      afterUser: after?.userId ?? NO_USER,
      afterKind: after?.kind ?? '',
      batch,
    });
    return rows.map((r) => ({
      userId: r.user_id,
      kind: r.kind,
      memories: Number(r.memories),
      cellsFor: r.cells_for === null ? null : Number(r.cells_for),
    }));
  }

  /**
   * Builds a partition's cells in short statements (decision 0100), each over about
   * `build.rowsPerStep` memories: every memory without a cell put in its nearest, batch by batch,
   * more cells seeded (ready at once) before each batch, then `build.rounds` k-means rounds, each refreshing the centroids and counts
   * and then moving the memories of a few cells at a time to their nearest cell, and a last refresh; last, the partition's row records the size they were built for. Recalls meanwhile read a
   * valid split: every memory is in one cell, or in none and read exactly.
   */
  async buildCells(scope: Scope, kind: string, build: CellBuild): Promise<boolean> {
    const partition = { scope, kind };
    // Seeds come a few per batch placed, each from the first memories still without a cell: spread
    // over the whole partition, not all from the first rows its index gives.
    const perStep = Math.max(1, Math.ceil((build.cells * build.rowsPerStep) / Math.max(1, build.memories)));
    let seeded = 0;
    do {
      seeded = Math.min(build.cells, seeded + perStep);
      if (!(await this.seedCells(scope, kind, { ...build, cells: seeded }))) return false;
    } while ((await this.assignCells(scope, kind, build.rowsPerStep)) >= build.rowsPerStep);
    if (!(await this.seedCells(scope, kind, build))) return false;
    for (let round = 0; round < build.rounds; round += 1) {
      await this.refreshCells(scope, kind, build);
      // A cell k-means left empty went: seeded again from a member of one of the largest cells, which it splits.
      await this.seedCells(scope, kind, build);
      for (const cells of await this.cellSteps(scope, kind, build)) {
        // A cell larger than a step is moved a step at a time (what moves out shifts the rest: some wait a round).
        const size = cells.length === 1 ? (cells[0]?.size ?? 0) : 0;
        for (let skip = 0; skip === 0 || skip < size; skip += build.rowsPerStep) {
          await this.sql.read(REFINE_CELLS, { ...partition, cells: cells.map((c) => c.cell), skip, take: build.rowsPerStep });
        }
      }
    }
    const [row] = await this.sql.read(CELLS_BUILT, { ...partition, memories: build.memories, cellsFor: build.cellsFor });
    return (row?.built ?? 0) > 0;
  }

  /** Seeds as many cells as the partition lacks of `build.cells`; false when another sweeper seeded them first. */
  private async seedCells(scope: Scope, kind: string, build: CellBuild): Promise<boolean> {
    const have = (await this.sql.read(LIST_CELLS, { scope, kind })).length;
    if (build.cells <= have) return true;
    try {
      await this.sql.read(SEED_CELLS, {
        scope,
        kind,
        cells: build.cells - have,
        window: Math.max(build.rowsPerStep, build.cells),
      });
      return true;
    } catch (error) {
      // Another sweeper seeded the same cells first: it builds them.
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  /**
   * A partition's cells in groups of about `rowsPerStep` memories, by each cell's last count or,
   * where none is known yet (a new cell), the partition's mean.
   */
  private async cellSteps(scope: Scope, kind: string, step: CellStep): Promise<{ cell: number; size: number }[][]> {
    const cells = await this.sql.read(LIST_CELLS, { scope, kind });
    const mean = Math.max(1, step.memories / Math.max(1, cells.length));
    const steps: { cell: number; size: number }[][] = [];
    let current: { cell: number; size: number }[] = [];
    let rows = 0;
    for (const { cell, members } of cells) {
      const size = Number(members) > 0 ? Number(members) : mean;
      if (current.length > 0 && rows + size > step.rowsPerStep) {
        steps.push(current);
        current = [];
        rows = 0;
      }
      current.push({ cell: Number(cell), size });
      rows += size;
    }
    if (current.length > 0) steps.push(current);
    return steps;
  }

  async unmarkCells(scope: Scope, kind: string, from: number): Promise<boolean> {
    if (!this.hasCells) return false;
    const [row] = await this.sql.read(UNMARK_CELLS, { scope, kind, from });
    return (row?.unmarked ?? 0) > 0;
  }

  async dropCells(scope: Scope, kind: string, cellsFor: number): Promise<boolean> {
    const [row] = await this.sql.read(DROP_CELLS, { scope, kind, cellsFor });
    return (row?.dropped ?? 0) > 0;
  }

  async assignCells(scope: Scope, kind: string, batch: number): Promise<number> {
    return (await this.sql.read(ASSIGN_CELLS, { scope, kind, batch })).length;
  }

  async refreshCells(scope: Scope, kind: string, step: CellStep): Promise<void> {
    for (const cells of await this.cellSteps(scope, kind, step)) {
      await this.sql.read(REFRESH_CELLS, { scope, kind, cells: cells.map((c) => c.cell) });
    }
  }
}
