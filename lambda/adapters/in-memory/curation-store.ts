import { decodeCursor, encodeCursor } from '../../memory/cursor.js';
import type { Scope, Source } from '../../memory/model.js';
import { evictionFor } from '../../memory/policy/eviction.js';
import { type ExpiryCutoff, expiresAfter, inExpiryIndex, isLive } from '../../memory/policy/expiry.js';
import { pinAllowed, pinnedAfter } from '../../memory/policy/pins.js';
import { WORDS_READ } from '../../memory/policy/supersession.js';
import type {
  CurationStore,
  Forgotten,
  InsertPlan,
  InsertResult,
  JournalPage,
  MemoryCounts,
  MergePlan,
  MergeResult,
  NeighbourQuery,
  Neighbours,
  RankedMemory,
  RecallQuery,
} from '../../ports/curation-store.js';
import { rank, toRanked } from './recall.js';
import { byId, cosineDistance, type MemoryState, type StoredMemory, secondsBetween, storedVector } from './state.js';

/** The cutoff of each kind that has one. */
export const cutoffsByKind = (expiry: readonly ExpiryCutoff[]) => new Map(expiry.map((e) => [e.kind, e.expiredBefore]));

/** Whether a memory is live under cutoffs given per kind (a kind without one never expires). */
export const liveUnder = (cutoffs: ReadonlyMap<string, Date>) => (m: StoredMemory) => isLive(m, cutoffs.get(m.kind) ?? null);

/** Prepends one source to a bounded newest-first list, as the statements' `jsonb - int` does. */
export function restated(list: readonly Source[], source: Source, keep: number): Source[] {
  const next = [source, ...list];
  next.splice(keep, 1);
  return next;
}

/**
 * The four tools' storage in memory: the reference the SQL store is held to by the same
 * conformance suite (test/store/), and the store the policy's unit tests run on. The rules come
 * from lambda/memory/policy/, as the SQL statements render them.
 */
export class InMemoryCurationStore implements CurationStore {
  constructor(private readonly state: MemoryState) {}

  async neighbours(query: NeighbourQuery): Promise<Neighbours> {
    const rows = this.state.partition(query.scope, [query.kind]);
    const vector = storedVector(query.embedding);
    const near = rows
      .map((m) => ({ m, distance: cosineDistance(vector, m.embedding) }))
      .sort((a, b) => a.distance - b.distance || byId(a.m, b.m))
      .slice(0, query.candidates)
      .filter(({ m }) => isLive(m, query.expiredBefore) && !m.supersededBy)
      .slice(0, query.judged ?? 1)
      .map(({ m, distance }) => ({ id: m.id, content: m.content, distance }));
    const exact = rows.find((m) => m.fingerprint === query.fingerprint);
    // The rarest of the new memory's terms the partition holds, then the nearest current memory among its best holders
    // (most occurrences, then the shortest, then by id: memory_terms_ranked's order, decision 0167).
    const df = (term: string) => rows.filter((m) => m.terms.has(term)).length;
    const [rarest] = [...new Set(query.terms ?? [])]
      .map((term) => ({ term, df: df(term) }))
      .filter((t) => t.df > 0)
      .sort((a, b) => a.df - b.df || (a.term < b.term ? -1 : 1));
    const [byWords] = rows
      .filter((m) => rarest !== undefined && m.terms.has(rarest.term))
      .sort((a, b) => holderOrder(a, b, rarest?.term ?? ''))
      .slice(0, WORDS_READ)
      .filter((m) => isLive(m, query.expiredBefore) && !m.supersededBy)
      .map((m) => ({ id: m.id, content: m.content, distance: cosineDistance(vector, m.embedding) }))
      .sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return {
      nearest: near[0],
      candidates: near,
      byWords,
      exact: exact ? { id: exact.id, live: isLive(exact, query.expiredBefore) } : undefined,
    };
  }

  async expirePartition(scope: Scope, kind: string, expiredBefore: Date, now: Date): Promise<number> {
    const gone = this.state.partition(scope, [kind]).filter((m) => !isLive(m, expiredBefore));
    this.expire(gone, expiredBefore, now);
    return gone.length;
  }

  /** Removes expired memories, each journaled at the instant it expired (decision 0055). */
  private expire(gone: readonly StoredMemory[], expiredBefore: Date, now: Date): void {
    const ttl = now.getTime() - expiredBefore.getTime();
    for (const m of gone) {
      const at = new Date(m.lastUsefulAt.getTime() + ttl);
      this.state.addLine({
        region: m.region,
        userId: m.userId,
        at,
        kind: m.kind,
        rule: 'expiry',
        ageSeconds: secondsBetween(m.createdAt, at),
        recallCount: m.recallCount,
      });
    }
    this.state.remove(gone.map((m) => m.id));
  }

  async insert(plan: InsertPlan, now: Date): Promise<InsertResult> {
    const { scope, kind } = plan;
    const rows = this.state.partition(scope, [kind]);
    const eviction = evictionFor(rows, plan.ceiling, plan.expiredBefore, plan.conflictsWith ?? null);
    if (!pinAllowed({ pin: plan.pinned, alreadyPinned: false }, this.state.pinnedCount(scope), plan.pinLimit)) {
      return { status: 'pin_limit' };
    }
    if (!eviction.room) return { status: 'kind_full' };
    const twin = rows.find((m) => m.fingerprint === plan.fingerprint);
    if (twin) {
      // A concurrent call stored the same text first: this one is absorbed into it, unless it expired.
      if (!isLive(twin, plan.expiredBefore)) return { status: 'expired_twin' };
      twin.restatements += 1;
      twin.lastUsefulAt = now;
      const change = { pin: plan.pinned, unpin: false };
      twin.pinned = pinnedAfter(twin.pinned, change);
      twin.expires = expiresAfter(twin.expires, change, plan.expiredBefore !== null);
      twin.restatedBy = restated(twin.restatedBy, plan.source, plan.sourcesKept);
      this.line(twin, 'duplicate', now);
      return { status: 'merged', id: twin.id };
    }
    const frequencies = plan.frequencies ?? plan.terms.map(() => 1);
    const terms = new Map(plan.terms.map((t, i) => [t, frequencies[i] ?? 1]));
    const origin = plan.source.origin;
    this.state.memories.set(plan.id, {
      id: plan.id,
      region: scope.region,
      userId: scope.userId,
      kind,
      content: plan.content,
      fingerprint: plan.fingerprint,
      embedding: storedVector(plan.embedding),
      terms,
      passages: new Map(plan.terms.map((t, i) => [t, plan.passages?.[i] ?? 1])),
      length: frequencies.reduce((sum, n) => sum + n, 0),
      pinned: plan.pinned,
      expires: inExpiryIndex({ pinned: plan.pinned, kindExpires: plan.expiredBefore !== null }),
      createdAt: now,
      lastUsefulAt: now,
      recallCount: 0,
      restatements: 1,
      origin,
      originSeq: origin === null ? null : this.state.lastPlace(scope, origin, kind) + 1,
      agent: plan.source.agent,
      client: plan.source.client,
      restatedBy: [],
    });
    for (const id of eviction.victims) {
      const victim = this.state.memories.get(id);
      if (victim) this.line(victim, 'ceiling', now);
    }
    this.state.remove(eviction.victims);
    if (plan.expiredBefore) {
      const stale = rows.filter((m) => !isLive(m, plan.expiredBefore) && m.fingerprint !== plan.fingerprint);
      this.expire(stale, plan.expiredBefore, now);
    }
    const replaced = plan.conflictsWith ? this.state.own(scope, plan.conflictsWith) : undefined;
    if (replaced && replaced.kind === kind) {
      this.state.link(plan.id, replaced.id);
      this.state.link(replaced.id, plan.id);
      replaced.supersededBy = plan.id;
      replaced.supersededAt = now;
    }
    return { status: 'inserted', id: plan.id, evicted: eviction.victims.length };
  }

  /** A journal line for a memory leaving or merging now. */
  private line(m: StoredMemory, rule: 'ceiling' | 'duplicate', now: Date): void {
    const { region, userId, kind, recallCount } = m;
    this.state.addLine({ region, userId, at: now, kind, rule, ageSeconds: secondsBetween(m.createdAt, now), recallCount });
  }

  async merge(plan: MergePlan, now: Date): Promise<MergeResult> {
    const target = this.state.own(plan.scope, plan.targetId);
    if (!target || !isLive(target, plan.expiredBefore)) return { status: 'gone' };
    const pin = plan.pin === 'pin';
    if (!pinAllowed({ pin, alreadyPinned: target.pinned }, this.state.pinnedCount(plan.scope), plan.pinLimit)) {
      return { status: 'pin_limit' };
    }
    target.restatements += 1;
    if (now > target.lastUsefulAt) target.lastUsefulAt = now;
    const unpin = plan.pin === 'unpin';
    target.expires = expiresAfter(target.expires, { pin, unpin }, plan.expiredBefore !== null);
    target.pinned = pinnedAfter(target.pinned, { pin, unpin });
    target.restatedBy = restated(target.restatedBy, plan.source, plan.sourcesKept);
    this.line(target, 'duplicate', now);
    // Said again, a superseded memory supersedes the memory that had replaced it.
    const replacer = target.supersededBy ? this.state.memories.get(target.supersededBy) : undefined;
    target.supersededBy = null;
    target.supersededAt = null;
    if (!replacer) return { status: 'merged', id: target.id };
    replacer.supersededBy = target.id;
    replacer.supersededAt = now;
    return { status: 'merged', id: target.id, supersedes: replacer.id };
  }

  async recall(query: RecallQuery): Promise<RankedMemory[]> {
    return rank(this.state, query).map((ranked) => {
      ranked.memory.recallCount += 1;
      if (query.now > ranked.memory.lastUsefulAt) ranked.memory.lastUsefulAt = query.now;
      return toRanked(this.state, ranked, query);
    });
  }

  async forgetIds(scope: Scope, ids: readonly string[], expiry: readonly ExpiryCutoff[]): Promise<string[]> {
    const live = liveUnder(cutoffsByKind(expiry));
    const gone = ids.flatMap((id) => {
      const m = this.state.own(scope, id);
      return m && live(m) ? [m.id] : [];
    });
    this.state.remove(gone);
    return [...new Set(gone)];
  }

  async forgetAll(scope: Scope, kind: string | undefined, expiry: readonly ExpiryCutoff[]): Promise<Forgotten> {
    const gone = this.state.partition(scope, kind === undefined ? undefined : [kind]);
    const memories = gone.filter(liveUnder(cutoffsByKind(expiry))).length;
    this.state.remove(gone.map((m) => m.id));
    const mine = (l: { region: string; userId: string; kind: string }) =>
      l.region === scope.region && l.userId === scope.userId && (kind === undefined || l.kind === kind);
    const before = this.state.journal.length;
    const kept = this.state.journal.filter((l) => !mine(l));
    this.state.journal.splice(0, this.state.journal.length, ...kept);
    return { memories, journalLines: before - kept.length };
  }

  async counts(scope: Scope, expiry: readonly ExpiryCutoff[]): Promise<MemoryCounts> {
    const perKind: Record<string, number> = {};
    const pinnedPerKind: Record<string, number> = {};
    for (const m of this.state.partition(scope).filter(liveUnder(cutoffsByKind(expiry)))) {
      perKind[m.kind] = (perKind[m.kind] ?? 0) + 1;
      pinnedPerKind[m.kind] = (pinnedPerKind[m.kind] ?? 0) + (m.pinned ? 1 : 0);
    }
    return { perKind, pinned: Object.values(pinnedPerKind).reduce((sum, n) => sum + n, 0), pinnedPerKind };
  }

  async journal(scope: Scope, pageSize: number, cursor: string | undefined): Promise<JournalPage> {
    const after = decodeCursor(cursor, 'journal');
    const before = (l: { at: Date; id: string }) =>
      !after || l.at.getTime() < Date.parse(after.value) || (l.at.getTime() === Date.parse(after.value) && l.id < after.id);
    const rows = this.state.journal
      .filter((l) => l.region === scope.region && l.userId === scope.userId && before(l))
      .sort((a, b) => b.at.getTime() - a.at.getTime() || byId(b, a))
      .slice(0, pageSize + 1);
    const page = rows.slice(0, pageSize);
    const last = page.at(-1);
    return {
      lines: page.map(({ at, kind, rule, ageSeconds, recallCount }) => ({ at, kind, rule, ageSeconds, recallCount })),
      nextCursor: rows.length > pageSize && last ? encodeCursor('journal', last.at, last.id) : undefined,
    };
  }
}

/** Two holders of a term in the lexical arm's order: most occurrences of it, then the shorter memory, then by id. */
function holderOrder(a: StoredMemory, b: StoredMemory, term: string): number {
  return (b.terms.get(term) ?? 0) - (a.terms.get(term) ?? 0) || a.length - b.length || byId(a, b);
}
