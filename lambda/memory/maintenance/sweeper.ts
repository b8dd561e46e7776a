import type { Clock } from '../../ports/clock.js';
import type { CellPartition, MaintenanceStore } from '../../ports/maintenance-store.js';
import type { LexicalAnalyzer } from '../lexical.js';
import type { CurationRules } from '../model.js';
import { expiredBefore } from '../policy/expiry.js';
import { supersededBefore } from '../policy/supersession.js';
import { VECTOR_CELLS } from '../policy/ranking.js';

/**
 * The most memories a page of the passages walk reads, whatever the sweep's batch (decision 0121).
 * A page's memories, in id order, lie on as many heap pages, read cold: 500 took up to 235 ms on
 * PGlite right after a 50,000-memory load, over issue 32's 200 ms.
 */
export const PASSAGES_PAGE = 100;

/** What a sweep is doing, for progress output; for `passages`, the count is of memories walked. */
export type SweepPhase = 'expiry' | 'superseded' | 'journal' | 'passages' | 'cells';

export interface SweepOptions {
  /** Rows deleted per statement: keeps each transaction short. */
  readonly batchSize: number;
  /** Statements per kind and per journal trim in one run: bounds the run's duration. */
  readonly maxBatches: number;
  /** Called after each batch, for progress output; for `cells`, the count is of memories put in cells. */
  readonly onBatch?: (step: { phase: SweepPhase; kind?: string; count: number }) => void;
  /**
   * When partitions get cells, and how they are refined: {@link VECTOR_CELLS} unless a test says
   * otherwise. The store's writes mark partitions from the same size (decision 0118): a smaller
   * `from` here than there misses the partitions in between.
   */
  readonly cells?: { readonly from: number; readonly rounds: number; readonly rowsPerStep?: number };
}

/** What a sweep did to the vector arm's cells (decision 0083). */
export interface CellsReport {
  /** Partitions whose cells were built, or built again. */
  readonly built: number;
  /** Partitions that shrank below the size that pays for cells, and lost them. */
  readonly dropped: number;
  /** Memories written since their partition's cells were built, put in one. */
  readonly placed: number;
}

export interface SweepReport {
  readonly region: string;
  readonly expired: Record<string, number>;
  /** Superseded memories deleted after their grace period, per kind (policy/supersession.ts). */
  readonly superseded: Record<string, number>;
  readonly trimmed: number;
  readonly cells: CellsReport;
  /** Postings stored without a passage mask that got theirs (decision 0119). */
  readonly passages: number;
  /** True when a bound stopped the run before everything due was deleted; the next run continues. */
  readonly incomplete: boolean;
}

/**
 * Deletes a region's expired memories and its superseded memories past their grace period
 * (journaling each, as `expiry` and `superseded`) and trims journal lines past retention,
 * in bounded batches, then keeps the vector arm's cells of large partitions (on the engines that
 * use them). Safe to run twice at once: every batch deletes and journals a row at most once, and a
 * partition's cells change only where they are as the run found them.
 */
export class Sweeper {
  constructor(
    private readonly store: MaintenanceStore,
    private readonly rules: CurationRules,
    private readonly clock: Clock,
    /** The analyzer in force, which cuts the passages of memories stored without them (decision 0119). */
    private readonly analyzer: LexicalAnalyzer,
  ) {}

  async run(region: string, options: SweepOptions): Promise<SweepReport> {
    const now = this.clock.now();
    const expired: Record<string, number> = {};
    let incomplete = await this.markExpiring(region, options);
    for (const [kind, rule] of Object.entries(this.rules.kinds)) {
      const cutoff = expiredBefore(rule, now);
      if (!cutoff) continue;
      const swept = await this.drain(options, (batch) => this.store.sweepExpired(region, kind, cutoff, batch, now), {
        phase: 'expiry',
        kind,
      });
      expired[kind] = swept.total;
      incomplete ||= swept.incomplete;
    }
    const superseded: Record<string, number> = {};
    for (const [kind, rule] of Object.entries(this.rules.kinds)) {
      const cutoff = supersededBefore(rule, now);
      let deletedOfKind = 0;
      const swept = await this.drain(
        options,
        async (batch) => {
          const { deleted, settled } = await this.store.sweepSuperseded(region, kind, cutoff, batch, now);
          deletedOfKind += deleted;
          // Settled rows (pinned, or current again) left the walk too: a full batch of them means more may be due.
          return deleted + settled;
        },
        { phase: 'superseded', kind },
      );
      superseded[kind] = deletedOfKind;
      incomplete ||= swept.incomplete;
    }
    const retentionCutoff = new Date(now.getTime() - this.rules.journalRetentionSeconds * 1000);
    const trimmed = await this.drain(options, (batch) => this.store.trimJournal(region, retentionCutoff, batch), {
      phase: 'journal',
    });
    const cleared = await this.drain({ ...options, onBatch: undefined }, (batch) => this.store.clearEmptyTerms(region, batch), {
      phase: 'journal',
    });
    // Terms whose flagged postings may miss some of their best are ranked again (decision 0101).
    const ranked = await this.drain({ ...options, onBatch: undefined }, (batch) => this.store.rankPostings(region, batch), {
      phase: 'journal',
    });
    const passages = await this.fillPassages(region, options);
    const cells = await this.keepCells(region, options);
    return {
      region,
      expired,
      superseded,
      trimmed: trimmed.total,
      cells: cells.report,
      passages: passages.written,
      incomplete:
        incomplete || trimmed.incomplete || cleared.incomplete || ranked.incomplete || passages.incomplete || cells.incomplete,
    };
  }

  /**
   * Gives postings stored without a passage mask (before migration 0021, or by older code) theirs,
   * a page of at most `PASSAGES_PAGE` memories at a time in id order from where the last sweep
   * stopped (decisions 0119, 0121):
   * the memories longer than one passage are cut as remember cuts them, and only postings still
   * without a mask are written. Once the walk has reached the end of the region it costs one read.
   */
  private async fillPassages(region: string, options: SweepOptions): Promise<{ written: number; incomplete: boolean }> {
    let written = 0;
    const walk = await this.drain(
      { ...options, batchSize: Math.min(options.batchSize, PASSAGES_PAGE) },
      async (batch) => {
        const page = await this.store.passagesPage(region, batch);
        if (page.finished) return 0;
        const cut = page.long.map((m) => {
          const masks = this.analyzer.passages(m.content);
          const length = [...this.analyzer.frequencies(m.content).values()].reduce((sum, n) => sum + n, 0);
          return { userId: m.userId, kind: m.kind, id: m.id, length, masks };
        });
        written += await this.store.writePassages(region, page, cut);
        return page.walked;
      },
      { phase: 'passages' },
    );
    return { written, incomplete: walk.incomplete };
  }

  /**
   * The vector arm's cells (decision 0083), partition by partition, a page of them per batch: a
   * partition of at least `from` memories without cells gets about √n of them; one that has
   * doubled or halved since its cells were built gets them anew, or loses them below `from`; in
   * every other, what was written since is put in its nearest cell, and each centroid becomes the
   * mean of what its cell holds now (no removed memory's vector stays in one past a sweep). The
   * pages hold the partitions marked for cells only (decision 0118); one that has none and is under
   * `from` (it shrank, or lost its cells) is unmarked.
   */
  private async keepCells(region: string, options: SweepOptions): Promise<{ report: CellsReport; incomplete: boolean }> {
    const { from, rounds, rowsPerStep } = { ...VECTOR_CELLS, ...options.cells };
    const report = { built: 0, dropped: 0, placed: 0 };
    let after: CellPartition | undefined;
    for (let page = 0; page < options.maxBatches; page += 1) {
      const partitions = await this.store.cellPartitions(region, options.batchSize, after);
      for (const p of partitions) {
        const scope = { region, userId: p.userId };
        if (p.cellsFor === null && p.memories < from) {
          await this.store.unmarkCells(scope, p.kind, from);
          continue;
        }
        const due = p.cellsFor === null || p.memories >= 2 * p.cellsFor || 2 * p.memories <= p.cellsFor;
        if (due && p.memories >= from) {
          const cells = Math.max(1, Math.round(Math.sqrt(p.memories)));
          if (
            await this.store.buildCells(scope, p.kind, { cells, rounds, rowsPerStep, memories: p.memories, cellsFor: p.cellsFor })
          ) {
            report.built += 1;
            options.onBatch?.({ phase: 'cells', kind: p.kind, count: p.memories });
          }
        } else if (due && p.cellsFor !== null) {
          if (await this.store.dropCells(scope, p.kind, p.cellsFor)) {
            report.dropped += 1;
            await this.store.unmarkCells(scope, p.kind, from);
          }
        } else {
          const placed = await this.drain(options, (batch) => this.store.assignCells(scope, p.kind, batch), {
            phase: 'cells',
            kind: p.kind,
          });
          report.placed += placed.total;
          if (placed.incomplete) return { report, incomplete: true };
          // What was forgotten, evicted or expired since leaves the centroids.
          await this.store.refreshCells(scope, p.kind, { rowsPerStep, memories: p.memories });
        }
      }
      if (partitions.length < options.batchSize) return { report, incomplete: false };
      after = partitions.at(-1);
    }
    return { report, incomplete: true };
  }

  /**
   * Puts into the expiry index the memories of kinds that have a TTL now but did not when the
   * region was last swept (or before the index became partial): once per kind, recorded. Returns
   * whether a bound stopped it (the next run goes on).
   */
  private async markExpiring(region: string, options: SweepOptions): Promise<boolean> {
    const ttlKinds = Object.entries(this.rules.kinds)
      .filter(([, rule]) => rule.ttlSeconds !== null)
      .map(([kind]) => kind)
      .sort();
    const marked = new Set(await this.store.expiringKinds(region));
    if (ttlKinds.length === marked.size && ttlKinds.every((k) => marked.has(k))) return false;
    for (const kind of ttlKinds.filter((k) => !marked.has(k))) {
      const done = await this.drain({ ...options, onBatch: undefined }, (batch) => this.store.markExpiring(region, kind, batch), {
        phase: 'expiry',
        kind,
      });
      if (done.incomplete) return true;
    }
    await this.store.recordExpiringKinds(region, ttlKinds);
    return false;
  }

  private async drain(
    options: SweepOptions,
    step: (batch: number) => Promise<number>,
    label: { phase: SweepPhase; kind?: string },
  ): Promise<{ total: number; incomplete: boolean }> {
    let total = 0;
    for (let i = 0; i < options.maxBatches; i += 1) {
      const count = await step(options.batchSize);
      total += count;
      options.onBatch?.({ ...label, count });
      if (count < options.batchSize) return { total, incomplete: false };
    }
    return { total, incomplete: true };
  }
}
