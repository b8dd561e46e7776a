import { decodeCursor, encodeCursor } from '../../../memory/cursor.js';
import { canonicalId } from '../../../memory/ids.js';
import type { JournalRule, Memory, Scope } from '../../../memory/model.js';
import type { ExpiryCutoff, KindCutoff } from '../../../memory/policy/expiry.js';
import type { RankedMemory, RecallQuery } from '../../../ports/curation-store.js';
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
} from '../../../ports/page-store.js';
import { BROWSE } from '../statements/page/browse.js';
import { JOURNAL_BY_DAY } from '../statements/page/journal-by-day.js';
import { JOURNAL_BY_HOUR } from '../statements/page/journal-by-hour.js';
import { MEMORY_BY_ID } from '../statements/page/memory-by-id.js';
import { NEXT_TO_GO } from '../statements/page/next-to-go.js';
import { SET_PINNED_MANY } from '../statements/page/set-pinned-many.js';
import { WRITERS } from '../statements/page/writers.js';
import { RECALL } from '../statements/recall/recall.js';
import { toMemory, toRanked } from './memory-rows.js';
import { recallInputs } from './sql-curation-store.js';
import type { StatementRunner } from './statement-runner.js';

/** The memory page's storage over SQL: reads change nothing, a pin is one statement within the pin limit. */
export class SqlPageStore implements PageStore {
  constructor(private readonly sql: StatementRunner) {}

  async search(query: RecallQuery): Promise<RankedMemory[]> {
    return (await this.sql.read(RECALL, recallInputs(query, false))).map(toRanked);
  }

  async browse(query: BrowseQuery): Promise<MemoryPage> {
    const order = query.order ?? 'created';
    const after = decodeCursor(query.cursor, order);
    const f = query.filters ?? {};
    const rows = await this.sql.read(BROWSE, {
      scope: query.scope,
      kinds: query.kinds,
      order,
      rows: query.pageSize + 1,
      afterValue: after?.value ?? null,
      afterId: after?.id ?? null,
      agent: f.agent ?? null,
      client: f.client ?? null,
      origin: f.origin ?? null,
      pinned: f.pinned ?? null,
      conflicting: f.conflicting ?? null,
    });
    const page = rows.slice(0, query.pageSize);
    const last = page.at(-1);
    const value = (row: typeof last & object) =>
      order === 'recalls' ? row.recall_count : new Date(order === 'created' ? row.created_at : row.last_useful_at);
    return {
      memories: page.map(toMemory),
      nextCursor: rows.length > query.pageSize && last ? encodeCursor(order, value(last), last.id) : undefined,
      total: rows[0]?.total ?? (after ? undefined : 0),
    };
  }

  async memory(scope: Scope, id: string, expiry: readonly ExpiryCutoff[]): Promise<Memory | undefined> {
    const known = canonicalId(id);
    if (!known) return undefined;
    const [row] = await this.sql.read(MEMORY_BY_ID, { scope, id: known, expiry });
    return row ? toMemory(row) : undefined;
  }

  writers(scope: Scope, kinds: readonly KindCutoff[], limit: number): Promise<WriterCount[]> {
    return this.sql.read(WRITERS, { scope, kinds, limit });
  }

  async journalByHour(scope: Scope, since: Date): Promise<JournalHourCount[]> {
    const rows = await this.sql.read(JOURNAL_BY_HOUR, { scope, since });
    return rows.map((r) => ({ hour: Number(r.hour), rule: r.rule as JournalRule, lines: r.lines }));
  }

  async journalByDay(scope: Scope, since: Date): Promise<JournalDayCount[]> {
    const rows = await this.sql.read(JOURNAL_BY_DAY, { scope, since });
    return rows.map((r) => ({ day: r.day, rule: r.rule as JournalRule, lines: r.lines }));
  }

  /** One memory is a set of one: the same statement, so the pin limit is guarded in one place. */
  async setPinned(plan: PinPlan): Promise<PinResult> {
    const result = await this.setPinnedMany({ ...plan, ids: [plan.id] });
    if (result.status !== 'changed') return result;
    return { status: result.changed.length === 1 ? 'changed' : 'unchanged' };
  }

  async setPinnedMany(plan: PinSetPlan): Promise<PinSetResult> {
    const ids = plan.ids.map((id) => canonicalId(id));
    if (ids.some((id) => id === undefined)) return { status: 'gone' };
    const distinct = [...new Set(ids as string[])];
    if (distinct.length === 0) return { status: 'changed', changed: [] };
    const inputs = {
      scope: plan.scope,
      ids: distinct,
      pinned: plan.pinned,
      pinLimit: plan.pinLimit,
      expiringKinds: plan.expiry.map((e) => e.kind),
      expiry: plan.expiry,
    };
    // As for one memory: the pins are what the limit depends on; an unpin only lowers the count.
    const [row] = plan.pinned
      ? await this.sql.ceilingWrite({ scope: plan.scope, kinds: [], pins: true }, SET_PINNED_MANY, inputs)
      : await this.sql.read(SET_PINNED_MANY, inputs);
    if (!row || row.found < distinct.length) return { status: 'gone' };
    if (!row.pin_ok) return { status: 'pin_limit' };
    return { status: 'changed', changed: row.changed };
  }

  async nextToGo(scope: Scope, kinds: readonly KindCutoff[], perKind: number): Promise<NextToGo[]> {
    const rows = await this.sql.read(NEXT_TO_GO, { scope, kinds, perKind });
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      content: r.content,
      lastUsefulAt: new Date(r.last_useful_at),
      recallCount: r.recall_count,
      supersededBy: r.superseded_by,
    }));
  }
}
