import { isLive } from '../../memory/policy/expiry.js';
import type { MaintenanceStore, PassagesPage, SweptSuperseded } from '../../ports/maintenance-store.js';
import { type MemoryState, secondsBetween } from './state.js';

/**
 * The sweeper's storage in memory. The vector arm here is exact over a partition, as on an engine
 * whose index reads by prefix, so there are no cells to keep.
 */
export class InMemoryMaintenanceStore implements MaintenanceStore {
  constructor(private readonly state: MemoryState) {}

  async sweepExpired(region: string, kind: string, expiredBefore: Date, batch: number, now: Date): Promise<number> {
    const gone = [...this.state.memories.values()]
      .filter((m) => m.region === region && m.kind === kind && m.expires && !isLive(m, expiredBefore))
      .sort((a, b) => a.lastUsefulAt.getTime() - b.lastUsefulAt.getTime())
      .slice(0, batch);
    const ttl = now.getTime() - expiredBefore.getTime();
    for (const m of gone) {
      const at = new Date(m.lastUsefulAt.getTime() + ttl);
      const { userId, recallCount } = m;
      this.state.addLine({ region, userId, at, kind, rule: 'expiry', ageSeconds: secondsBetween(m.createdAt, at), recallCount });
    }
    this.state.remove(gone.map((m) => m.id));
    return gone.length;
  }

  async sweepSuperseded(
    region: string,
    kind: string,
    supersededBefore: Date,
    batch: number,
    now: Date,
  ): Promise<SweptSuperseded> {
    const picked = [...this.state.memories.values()]
      .filter((m) => m.region === region && m.kind === kind && m.supersededAt && m.supersededAt < supersededBefore)
      .sort((a, b) => (a.supersededAt?.getTime() ?? 0) - (b.supersededAt?.getTime() ?? 0))
      .slice(0, batch);
    // A replacement that left already cleared `supersededBy` (state.remove): only pinned ones stay superseded here.
    const settled = picked.filter((m) => m.pinned);
    for (const m of settled) m.supersededAt = null;
    const gone = picked.filter((m) => !m.pinned);
    for (const m of gone) {
      const { userId, recallCount } = m;
      this.state.addLine({
        region,
        userId,
        at: now,
        kind,
        rule: 'superseded',
        ageSeconds: secondsBetween(m.createdAt, now),
        recallCount,
      });
    }
    this.state.remove(gone.map((m) => m.id));
    return { deleted: gone.length, settled: settled.length };
  }

  async trimJournal(region: string, olderThan: Date, batch: number): Promise<number> {
    const old = new Set(
      this.state.journal
        .filter((l) => l.region === region && l.at < olderThan)
        .sort((a, b) => a.at.getTime() - b.at.getTime())
        .slice(0, batch),
    );
    const kept = this.state.journal.filter((l) => !old.has(l));
    this.state.journal.splice(0, this.state.journal.length, ...kept);
    return old.size;
  }

  async markExpiring(region: string, kind: string, batch: number): Promise<number> {
    const marked = [...this.state.memories.values()]
      .filter((m) => m.region === region && m.kind === kind && !m.pinned && !m.expires)
      .slice(0, batch);
    for (const m of marked) m.expires = true;
    return marked.length;
  }

  async expiringKinds(region: string): Promise<string[]> {
    return [...(this.state.expiringKinds.get(region) ?? [])];
  }

  async recordExpiringKinds(region: string, kinds: readonly string[]): Promise<void> {
    this.state.expiringKinds.set(region, [...kinds]);
  }

  /** Document frequencies are counted on read here: none is ever left at zero. */
  async clearEmptyTerms(): Promise<number> {
    return 0;
  }

  /** Postings are read whole and ranked on read here: nothing is flagged. */
  async rankPostings(): Promise<number> {
    return 0;
  }

  /** Every posting is written with its mask here: the walk has nothing to give (decision 0119). */
  async passagesPage(): Promise<PassagesPage> {
    return { walked: 0, end: true, finished: true, long: [] };
  }

  async writePassages(): Promise<number> {
    return 0;
  }

  async cellPartitions(): Promise<[]> {
    return [];
  }

  async unmarkCells(): Promise<boolean> {
    return false;
  }

  async buildCells(): Promise<boolean> {
    return false;
  }

  async dropCells(): Promise<boolean> {
    return false;
  }

  async assignCells(): Promise<number> {
    return 0;
  }

  async refreshCells(): Promise<void> {}
}
