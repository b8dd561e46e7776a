import type { Scope } from '../../memory/model.js';
import { fitsWithoutEviction } from '../../memory/policy/eviction.js';
import { pinsFit } from '../../memory/policy/pins.js';
import type { ImportPlan, ImportResult, LoadPlan, TransferStore } from '../../ports/transfer-store.js';
import { liveUnder } from './curation-store.js';
import { byId, type MemoryState, type StoredMemory, storedVector } from './state.js';

const lengthOf = (frequencies: ReadonlyMap<string, number>) => [...frequencies.values()].reduce((sum, n) => sum + n, 0);

/** Imports and bulk loads in memory: each step all or nothing, never past a ceiling or the pin limit, never evicting. */
export class InMemoryTransferStore implements TransferStore {
  constructor(private readonly state: MemoryState) {}

  async importMemories(plan: ImportPlan): Promise<ImportResult> {
    const { scope } = plan;
    const cutoffs = new Map(plan.kinds.flatMap((k) => (k.expiredBefore ? [[k.kind, k.expiredBefore] as const] : [])));
    const live = this.state
      .partition(
        scope,
        plan.kinds.map((k) => k.kind),
      )
      .filter(liveUnder(cutoffs));
    const present = new Map<string, string>();
    for (const m of plan.memories) {
      const twin = live.find((l) => l.kind === m.kind && l.fingerprint === m.fingerprint);
      if (twin) present.set(m.id, twin.id);
    }
    const fresh = plan.memories.filter((m) => !present.has(m.id));
    const room = plan.kinds
      .map((k) => ({
        kind: k.kind,
        ceiling: k.ceiling,
        have: live.filter((l) => l.kind === k.kind).length,
        adding: fresh.filter((m) => m.kind === k.kind).length,
      }))
      .sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
    const pins = { have: this.state.pinnedCount(scope), adding: fresh.filter((m) => m.pinned).length };
    const ok =
      room.every((r) => fitsWithoutEviction(r.have, r.adding, r.ceiling)) && pinsFit(pins.have, pins.adding, plan.pinLimit);
    if (!ok) return { status: 'refused', kinds: room.map(({ kind, have, adding }) => ({ kind, have, adding })), pins };
    // As one statement does, every check reads the store as it was before the import: the last
    // place of each origin, and the journal lines already there.
    const lastPlaces = new Map<string, number>();
    for (const m of fresh) {
      const key = JSON.stringify([m.source.origin, m.kind]);
      if (m.source.origin !== null && !lastPlaces.has(key))
        lastPlaces.set(key, this.state.lastPlace(scope, m.source.origin, m.kind));
    }
    const journalBefore = [...this.state.journal];
    const resolved = new Map(present);
    const places = new Map<string, number>();
    const ordered = [...fresh].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || byId(a, b));
    let written = 0;
    for (const m of plan.writeMemories === false ? [] : ordered) {
      const origin = m.source.origin;
      const key = JSON.stringify([origin, m.kind]);
      const place = (places.get(key) ?? 0) + 1;
      places.set(key, place);
      const clash =
        this.state.memories.has(m.id) || this.state.partition(scope, [m.kind]).some((o) => o.fingerprint === m.fingerprint);
      if (clash) continue;
      this.store(scope, {
        id: m.id,
        kind: m.kind,
        content: m.content,
        fingerprint: m.fingerprint,
        embedding: storedVector(m.embedding),
        terms: new Map(m.frequencies),
        passages: new Map(m.passages ?? []),
        length: lengthOf(m.frequencies),
        pinned: m.pinned,
        expires: m.expires,
        createdAt: m.createdAt,
        lastUsefulAt: m.lastUsefulAt,
        recallCount: m.recallCount,
        restatements: m.restatements,
        origin,
        originSeq: origin === null ? null : (lastPlaces.get(key) ?? 0) + place,
        agent: m.source.agent,
        client: m.source.client,
        restatedBy: m.restatedBy.map((s) => ({ ...s })),
      });
      resolved.set(m.id, m.id);
      written += 1;
    }
    let links = 0;
    for (const [a, b] of plan.links) {
      const [from, to] = [resolved.get(a), resolved.get(b)];
      if (from && to && from !== to && this.state.link(from, to)) links += 1;
    }
    // On memories there before the step, as the statement's UPDATE sees them.
    for (const s of plan.supersessions ?? []) {
      const [older, newer] = [present.get(s.older), present.get(s.newer)];
      const m = older ? this.state.memories.get(older) : undefined;
      if (m && newer && older !== newer && !m.supersededBy) {
        m.supersededBy = newer;
        m.supersededAt = s.at;
      }
    }
    let journalLines = 0;
    for (const l of plan.journal) {
      const twin = journalBefore.some(
        (e) =>
          e.region === scope.region &&
          e.userId === scope.userId &&
          e.at.getTime() === l.at.getTime() &&
          e.kind === l.kind &&
          e.rule === l.rule &&
          e.ageSeconds === l.ageSeconds &&
          e.recallCount === l.recallCount,
      );
      if (twin) continue;
      this.state.addLine({ region: scope.region, userId: scope.userId, ...l });
      journalLines += 1;
    }
    return { status: 'imported', written, alreadyPresent: present.size, links, journalLines };
  }

  async load(plan: LoadPlan): Promise<number> {
    for (const m of plan.memories) {
      this.store(plan.scope, {
        id: m.id,
        kind: plan.kind,
        content: m.content,
        fingerprint: m.fingerprint,
        embedding: storedVector(m.embedding),
        terms: new Map(m.frequencies),
        passages: new Map(m.passages ?? []),
        length: lengthOf(m.frequencies),
        pinned: false,
        expires: plan.expires,
        createdAt: plan.at,
        lastUsefulAt: plan.at,
        recallCount: 0,
        restatements: 1,
        origin: null,
        originSeq: null,
        agent: plan.agent,
        client: plan.client,
        restatedBy: [],
      });
    }
    return plan.memories.length;
  }

  private store(scope: Scope, m: Omit<StoredMemory, 'region' | 'userId'>): void {
    this.state.memories.set(m.id, { ...m, region: scope.region, userId: scope.userId });
  }
}
