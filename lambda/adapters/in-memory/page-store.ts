import { decodeCursor, encodeCursor } from '../../memory/cursor.js';
import type { JournalRule, Memory, Scope } from '../../memory/model.js';
import { byEvictionOrder, EVICTABLE } from '../../memory/policy/eviction.js';
import { holds } from '../../memory/policy/condition.js';
import { type ExpiryCutoff, inExpiryIndex, type KindCutoff } from '../../memory/policy/expiry.js';
import { pinAllowed, setPinnedAllowed } from '../../memory/policy/pins.js';
import type { RankedMemory, RecallQuery } from '../../ports/curation-store.js';
import type {
  BrowseQuery,
  JournalDayCount,
  JournalHourCount,
  MemoryPage,
  NextToGo,
  PageStore,
  PinPlan,
  PinResult,
  PinSetPlan,
  PinSetResult,
  WriterCount,
} from '../../ports/page-store.js';
import { cutoffsByKind, liveUnder } from './curation-store.js';
import { rank, toMemory, toRanked } from './recall.js';
import { byId, type MemoryState, type StoredMemory } from './state.js';

/** The live memories of some kinds, each kind under its own cutoff. */
function liveOf(state: MemoryState, scope: Scope, kinds: readonly KindCutoff[]): StoredMemory[] {
  const cutoffs = new Map(kinds.flatMap((k) => (k.expiredBefore ? [[k.kind, k.expiredBefore] as const] : [])));
  return state
    .partition(
      scope,
      kinds.map((k) => k.kind),
    )
    .filter(liveUnder(cutoffs));
}

/** The value a listing in `order` sorts by (descending), as the cursor carries it. */
const valueIn = (order: 'created' | 'last_useful' | 'recalls', m: StoredMemory): number =>
  order === 'recalls' ? m.recallCount : (order === 'created' ? m.createdAt : m.lastUsefulAt).getTime();

/** Counts lines per (bucket, rule), ordered by bucket then rule, as the chart's statements group them. */
function countLines<B extends string | number>(lines: readonly { bucket: B; rule: JournalRule }[]) {
  const counted = new Map<string, { bucket: B; rule: JournalRule; lines: number }>();
  for (const l of lines) {
    const key = `${l.bucket}|${l.rule}`;
    const c = counted.get(key) ?? { bucket: l.bucket, rule: l.rule, lines: 0 };
    c.lines += 1;
    counted.set(key, c);
  }
  return [...counted.values()].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : a.rule < b.rule ? -1 : 1));
}

/** The memory page's storage in memory: reads change nothing; a pin holds the pin limit. */
export class InMemoryPageStore implements PageStore {
  constructor(private readonly state: MemoryState) {}

  async search(query: RecallQuery): Promise<RankedMemory[]> {
    return rank(this.state, query).map((ranked) => toRanked(this.state, ranked, query));
  }

  async browse(query: BrowseQuery): Promise<MemoryPage> {
    const order = query.order ?? 'created';
    const after = decodeCursor(query.cursor, order);
    const f = query.filters ?? {};
    const matching = liveOf(this.state, query.scope, query.kinds).filter(
      (m) =>
        (f.agent === undefined || m.agent === f.agent) &&
        (f.client === undefined || m.client === f.client) &&
        (f.origin === undefined || (m.origin ?? '').toLowerCase().includes(f.origin.toLowerCase())) &&
        (f.pinned === undefined || m.pinned === f.pinned) &&
        (f.conflicting === undefined || this.state.linksOf(m.id).length > 0 === f.conflicting),
    );
    const afterValue = after ? (order === 'recalls' ? Number(after.value) : Date.parse(after.value)) : undefined;
    const rows = matching
      .filter((m) => {
        if (!after || afterValue === undefined) return true;
        const v = valueIn(order, m);
        return v < afterValue || (v === afterValue && m.id < after.id);
      })
      .sort((a, b) => valueIn(order, b) - valueIn(order, a) || byId(b, a))
      .slice(0, query.pageSize + 1);
    const page = rows.slice(0, query.pageSize);
    const last = page.at(-1);
    const cursorValue = (m: StoredMemory) =>
      order === 'recalls' ? m.recallCount : order === 'created' ? m.createdAt : m.lastUsefulAt;
    return {
      memories: page.map((m) => toMemory(this.state, m)),
      nextCursor: rows.length > query.pageSize && last ? encodeCursor(order, cursorValue(last), last.id) : undefined,
      total: rows.length > 0 ? matching.length : after ? undefined : 0,
    };
  }

  async memory(scope: Scope, id: string, expiry: readonly ExpiryCutoff[]): Promise<Memory | undefined> {
    const m = this.state.own(scope, id);
    return m && liveUnder(cutoffsByKind(expiry))(m) ? toMemory(this.state, m) : undefined;
  }

  async writers(scope: Scope, kinds: readonly KindCutoff[], limit: number): Promise<WriterCount[]> {
    const counted = new Map<string, WriterCount>();
    for (const m of liveOf(this.state, scope, kinds)) {
      const key = JSON.stringify([m.agent, m.client]);
      const c = counted.get(key);
      counted.set(key, { agent: m.agent, client: m.client, memories: (c?.memories ?? 0) + 1 });
    }
    const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    return [...counted.values()]
      .sort((a, b) => b.memories - a.memories || text(a.agent, b.agent) || text(a.client, b.client))
      .slice(0, limit);
  }

  async journalByHour(scope: Scope, since: Date): Promise<JournalHourCount[]> {
    const lines = this.mine(scope, since).map((l) => ({ bucket: Math.floor(l.at.getTime() / 3_600_000), rule: l.rule }));
    return countLines(lines).map((c) => ({ hour: c.bucket, rule: c.rule, lines: c.lines }));
  }

  async journalByDay(scope: Scope, since: Date): Promise<JournalDayCount[]> {
    const lines = this.mine(scope, since).map((l) => ({ bucket: l.at.toISOString().slice(0, 10), rule: l.rule }));
    return countLines(lines).map((c) => ({ day: c.bucket, rule: c.rule, lines: c.lines }));
  }

  private mine(scope: Scope, since: Date) {
    return this.state.journal.filter((l) => l.region === scope.region && l.userId === scope.userId && l.at >= since);
  }

  async setPinned(plan: PinPlan): Promise<PinResult> {
    const m = this.state.own(plan.scope, plan.id);
    if (!m || !liveUnder(cutoffsByKind(plan.expiry))(m)) return { status: 'gone' };
    if (!pinAllowed({ pin: plan.pinned, alreadyPinned: m.pinned }, this.state.pinnedCount(plan.scope), plan.pinLimit)) {
      return { status: 'pin_limit' };
    }
    if (m.pinned === plan.pinned) return { status: 'unchanged' };
    m.pinned = plan.pinned;
    m.expires = inExpiryIndex({ pinned: plan.pinned, kindExpires: plan.expiry.some((e) => e.kind === m.kind) });
    return { status: 'changed' };
  }

  async setPinnedMany(plan: PinSetPlan): Promise<PinSetResult> {
    const live = liveUnder(cutoffsByKind(plan.expiry));
    const found = [...new Set(plan.ids.map((id) => id.toLowerCase()))].map((id) => this.state.own(plan.scope, id));
    const all = found.filter((m): m is StoredMemory => m !== undefined && live(m));
    if (all.length < found.length) return { status: 'gone' };
    const toChange = all.filter((m) => m.pinned !== plan.pinned).sort(byId);
    if (!setPinnedAllowed(plan.pinned, this.state.pinnedCount(plan.scope), toChange.length, plan.pinLimit))
      return { status: 'pin_limit' };
    for (const m of toChange) {
      m.pinned = plan.pinned;
      m.expires = inExpiryIndex({ pinned: plan.pinned, kindExpires: plan.expiry.some((e) => e.kind === m.kind) });
    }
    return { status: 'changed', changed: toChange.map((m) => m.id) };
  }

  async nextToGo(scope: Scope, kinds: readonly KindCutoff[], perKind: number): Promise<NextToGo[]> {
    const evictable = liveOf(this.state, scope, kinds).filter((m) => holds(EVICTABLE, m, { cutoff: null, spared: null }));
    const names = [...new Set(evictable.map((m) => m.kind))].sort();
    return names.flatMap((kind) =>
      evictable
        .filter((m) => m.kind === kind)
        .sort(byEvictionOrder)
        .slice(0, perKind)
        .map(({ id, content, lastUsefulAt, recallCount, supersededBy }) => ({
          id,
          kind,
          content,
          lastUsefulAt,
          recallCount,
          supersededBy: supersededBy ?? null,
        })),
    );
  }
}
