import type { Clock } from '../ports/clock.js';
import type { MemoryStore } from '../ports/memory-store.js';
import type { CurationRules } from './model.js';
import { expiredBefore } from './rules.js';

export interface SweepOptions {
  /** Rows deleted per statement: keeps each transaction short. */
  readonly batchSize: number;
  /** Statements per kind and per journal trim in one run: bounds the run's duration. */
  readonly maxBatches: number;
  /** Called after each batch, for progress output. */
  readonly onBatch?: (step: { phase: 'expiry' | 'journal'; kind?: string; count: number }) => void;
}

export interface SweepReport {
  readonly region: string;
  readonly expired: Record<string, number>;
  readonly trimmed: number;
  /** True when a bound stopped the run before everything due was deleted; the next run continues. */
  readonly incomplete: boolean;
}

/**
 * Deletes a region's expired memories (journaling each) and trims journal lines past retention,
 * in bounded batches. Safe to run twice at once: every batch deletes and journals a row at most once.
 */
export class Sweeper {
  constructor(
    private readonly store: MemoryStore,
    private readonly rules: CurationRules,
    private readonly clock: Clock,
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
    const retentionCutoff = new Date(now.getTime() - this.rules.journalRetentionSeconds * 1000);
    const trimmed = await this.drain(options, (batch) => this.store.trimJournal(region, retentionCutoff, batch), {
      phase: 'journal',
    });
    const cleared = await this.drain({ ...options, onBatch: undefined }, (batch) => this.store.clearEmptyTerms(region, batch), {
      phase: 'journal',
    });
    return { region, expired, trimmed: trimmed.total, incomplete: incomplete || trimmed.incomplete || cleared.incomplete };
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
    label: { phase: 'expiry' | 'journal'; kind?: string },
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
