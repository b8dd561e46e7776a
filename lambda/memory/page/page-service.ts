import type { Clock } from '../../ports/clock.js';
import type { CurationStore, JournalPage } from '../../ports/curation-store.js';
import type { Embedder } from '../../ports/embedder.js';
import type { MemoryFilters, MemoryOrder, MemoryPage, PageStore, WriterCount } from '../../ports/page-store.js';
import { InvalidInputError, PinLimitError } from '../errors.js';
import type { JudgeHealth } from '../judge-health.js';
import { LIMITS } from '../limits.js';
import type { CurationRules, Memory, Principal, RecalledMemory, Scope } from '../model.js';
import { expiresAt, expiryCutoffs, kindCutoffs } from '../policy/expiry.js';
import { kindRule, kindsOf } from '../policy/kinds.js';
import type { RecallInput, RecallPlanner } from '../recall-query.js';
import { matchesFilters } from './filters.js';
import { evictionReason, expiryReason, type MemoryOutlook, outlookOf, type PinRoom, pinRoom, pinVerdict } from './outlook.js';
import type { BrowseInput, JournalDay, JournalHour, KindOutlook, Overview } from './page-types.js';

/** A search of the page: recall's input, and the listing's filters applied to what it ranks. */
export interface SearchInput extends RecallInput {
  readonly filters?: MemoryFilters;
}

export interface PageServiceDeps {
  readonly page: PageStore;
  /** The counts and the journal the tools read too. */
  readonly curation: Pick<CurationStore, 'counts' | 'journal'>;
  readonly planner: RecallPlanner;
  readonly embedder: Embedder;
  readonly judgeHealth: JudgeHealth;
  readonly clock: Clock;
  readonly rules: CurationRules;
}

const scopeOf = (p: Principal): Scope => ({ region: p.region, userId: p.userId });

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Bounds of the memory page's reads: default and maximum. */
const BROWSE_PAGE = { default: 50, max: 100 } as const;
const JOURNAL_DAYS = { default: 30, max: 90 } as const;
const NEXT_TO_GO = { default: 5, max: 50 } as const;
const JOURNAL_HOURS = { default: 24, max: 168 } as const;
const ORDERS: readonly MemoryOrder[] = ['created', 'last_useful', 'recalls'];
/** Who-wrote-it pairs the page's filters offer at most. */
const WRITERS_SHOWN = 100;

const utcDate = (d: Date) => [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()] as const;

/** An optional integer from 1 to `bounds.max`, or the default; anything else is a clear error. */
function boundedInteger(name: string, value: number | undefined, bounds: { default: number; max: number }): number {
  const n = value ?? bounds.default;
  if (!Number.isInteger(n) || n < 1 || n > bounds.max)
    throw new InvalidInputError(`${name} must be an integer from 1 to ${bounds.max}`);
  return n;
}

/**
 * The memory page (DESIGN §7b): what the memory keeps, what it forgot and why, what goes next; pins
 * and search. Looking is not recalling: nothing here makes a memory more useful.
 */
export class PageService {
  constructor(private readonly deps: PageServiceDeps) {}

  private now(): Date {
    return this.deps.clock.now();
  }

  /** Counts against ceilings per kind, pins against the pin limit, and the providers in use. */
  async overview(principal: Principal): Promise<Overview> {
    const kinds = kindsOf(this.deps.rules);
    const counts = await this.deps.curation.counts(scopeOf(principal), expiryCutoffs(this.deps.rules, kinds, this.now()));
    return {
      kinds: kinds.map((kind) => {
        const rule = kindRule(this.deps.rules, kind);
        const count = counts.perKind[kind] ?? 0;
        return { kind, ceiling: rule.ceiling, ttlSeconds: rule.ttlSeconds, count, pinned: counts.pinnedPerKind[kind] ?? 0 };
      }),
      pinned: counts.pinned,
      pinLimit: this.deps.rules.pinLimit,
      pins: pinRoom(counts.pinned, this.deps.rules.pinLimit),
      judge: this.deps.judgeHealth.snapshot(),
      embedder: this.deps.embedder.name,
    };
  }

  /**
   * Recall's ranking, writing nothing. With filters, recall's most it returns are ranked and the
   * filters keep those that match, best first: the list's filters hold for search too (decision 0138).
   */
  async search(principal: Principal, input: SearchInput): Promise<RecalledMemory[]> {
    const filters = input.filters ?? {};
    const filtered = Object.values(filters).some((v) => v !== undefined);
    const wanted = input.limit ?? LIMITS.recallDefault;
    const asked: RecallInput = filtered ? { ...input, limit: LIMITS.recallMax } : input;
    const found = this.deps.planner.answer(
      asked,
      await this.deps.page.search(await this.deps.planner.plan(scopeOf(principal), asked, this.now())),
    );
    return filtered ? found.filter((m) => matchesFilters(m, filters)).slice(0, wanted) : found;
  }

  /** The pins the caller holds against the limit, and the room left. */
  async pinRoom(principal: Principal): Promise<PinRoom> {
    const kinds = kindsOf(this.deps.rules);
    const counts = await this.deps.curation.counts(scopeOf(principal), expiryCutoffs(this.deps.rules, kinds, this.now()));
    return pinRoom(counts.pinned, this.deps.rules.pinLimit);
  }

  /** What the policy says of each memory now (expiry, Pin, Unpin), with the pins held now: what the page shows. */
  outlooks(memories: readonly Memory[], room: PinRoom): MemoryOutlook[] {
    const now = this.now();
    return memories.map((m) => outlookOf(this.deps.rules, m, room, now));
  }

  /** Live memories, filtered, newest first unless another order is asked, paged. */
  async browse(principal: Principal, input: BrowseInput): Promise<MemoryPage> {
    const pageSize = boundedInteger('limit', input.limit, BROWSE_PAGE);
    if (input.order !== undefined && !ORDERS.includes(input.order))
      throw new InvalidInputError(`order must be one of ${ORDERS.join(', ')}`);
    const kinds = input.kind === undefined ? kindsOf(this.deps.rules) : [input.kind];
    const filters: MemoryFilters | undefined = input.filters;
    return this.deps.page.browse({
      scope: scopeOf(principal),
      kinds: kindCutoffs(this.deps.rules, kinds, this.now()),
      pageSize,
      cursor: input.cursor,
      order: input.order,
      filters,
    });
  }

  /** One live memory of the caller by id (a conflict's other side), or undefined. */
  async memory(principal: Principal, id: string): Promise<Memory | undefined> {
    return this.deps.page.memory(scopeOf(principal), id, this.cutoffs());
  }

  /** Which keys and clients wrote the caller's live memories, with how many each: the page's filters. */
  async writers(principal: Principal): Promise<WriterCount[]> {
    return this.deps.page.writers(
      scopeOf(principal),
      kindCutoffs(this.deps.rules, kindsOf(this.deps.rules), this.now()),
      WRITERS_SHOWN,
    );
  }

  /**
   * Pins or unpins one memory, as `remember` with `pinned` does but without restating it: within
   * the pin limit, and usefulness untouched (a pin is not a recall). Undefined when the caller has
   * no live memory of that id.
   */
  async setPinned(principal: Principal, id: string, pinned: boolean): Promise<{ pinned: boolean; changed: boolean } | undefined> {
    const pinLimit = this.deps.rules.pinLimit;
    const result = await this.deps.page.setPinned({ scope: scopeOf(principal), id, pinned, pinLimit, expiry: this.cutoffs() });
    if (result.status === 'pin_limit') throw new PinLimitError(pinLimit);
    return result.status === 'gone' ? undefined : { pinned, changed: result.status === 'changed' };
  }

  /**
   * Pins or unpins several memories as one change: all of them or none, in one store call that is
   * one statement on SQL, so that no failure, not even a server stopped half way, leaves part of a
   * selection changed (decision 0112). Undefined when one of them is gone.
   */
  async setPinnedMany(principal: Principal, ids: readonly string[], pinned: boolean): Promise<{ changed: number } | undefined> {
    const unique = [...new Set(ids)];
    if (unique.length === 0 || unique.length > LIMITS.forgetIdsMax)
      throw new InvalidInputError(`give from 1 to ${LIMITS.forgetIdsMax} ids`);
    const pinLimit = this.deps.rules.pinLimit;
    const result = await this.deps.page.setPinnedMany({
      scope: scopeOf(principal),
      ids: unique,
      pinned,
      pinLimit,
      expiry: this.cutoffs(),
    });
    if (result.status === 'pin_limit') throw new PinLimitError(pinLimit);
    return result.status === 'gone' ? undefined : { changed: result.changed.length };
  }

  /** The journal, newest first, paged as curation_state pages it (`pageSize` up to the tools' maximum). */
  async journal(principal: Principal, cursor: string | undefined, pageSize?: number): Promise<JournalPage> {
    const size = boundedInteger('limit', pageSize, { default: LIMITS.journalPageDefault, max: LIMITS.journalPageMax });
    return this.deps.curation.journal(scopeOf(principal), size, cursor);
  }

  /** Automatic deletions per UTC day and rule over the last `days` days (today included), oldest first. */
  async journalByDay(principal: Principal, days: number | undefined): Promise<JournalDay[]> {
    const span = boundedInteger('days', days, JOURNAL_DAYS);
    const today = Date.UTC(...utcDate(this.now()));
    const dayOf = (i: number) => new Date(today - (span - 1 - i) * DAY_MS).toISOString().slice(0, 10);
    const counted = await this.deps.page.journalByDay(scopeOf(principal), new Date(today - (span - 1) * DAY_MS));
    return Array.from({ length: span }, (_, i) => {
      const day = dayOf(i);
      const of = (rule: string) => counted.find((c) => c.day === day && c.rule === rule)?.lines ?? 0;
      return { day, ceiling: of('ceiling'), expiry: of('expiry'), duplicate: of('duplicate'), superseded: of('superseded') };
    });
  }

  /** Automatic deletions per UTC hour and rule over the last `hours` hours (this hour included), oldest first. */
  async journalByHour(principal: Principal, hours: number | undefined): Promise<JournalHour[]> {
    const span = boundedInteger('hours', hours, JOURNAL_HOURS);
    const thisHour = Math.floor(this.now().getTime() / HOUR_MS);
    const first = thisHour - span + 1;
    const counted = await this.deps.page.journalByHour(scopeOf(principal), new Date(first * HOUR_MS));
    return Array.from({ length: span }, (_, i) => {
      const of = (rule: string) => counted.find((c) => c.hour === first + i && c.rule === rule)?.lines ?? 0;
      const hour = new Date((first + i) * HOUR_MS).toISOString();
      return { hour, ceiling: of('ceiling'), expiry: of('expiry'), duplicate: of('duplicate'), superseded: of('superseded') };
    });
  }

  /** Per kind, what the ceiling evicts first and, for a kind with a TTL, what expires first: forgetting read before it happens. */
  async nextToGo(principal: Principal, limit: number | undefined): Promise<KindOutlook[]> {
    const perKind = boundedInteger('limit', limit, NEXT_TO_GO);
    const kinds = kindsOf(this.deps.rules);
    const now = this.now();
    const scope = scopeOf(principal);
    const counts = await this.deps.curation.counts(scope, expiryCutoffs(this.deps.rules, kinds, now));
    const next = await this.deps.page.nextToGo(scope, kindCutoffs(this.deps.rules, kinds, now), perKind);
    const room = pinRoom(counts.pinned, this.deps.rules.pinLimit);
    return kinds.map((kind) => {
      const rule = kindRule(this.deps.rules, kind);
      const own = next.filter((m) => m.kind === kind);
      const expiring = own.map((m) => ({ ...m, expiresAt: expiresAt(rule, m.lastUsefulAt) ?? m.lastUsefulAt }));
      return {
        kind,
        ceiling: rule.ceiling,
        count: counts.perKind[kind] ?? 0,
        full: (counts.perKind[kind] ?? 0) >= rule.ceiling,
        evictNext: own.map(({ id, content, lastUsefulAt, recallCount, supersededBy }, i) => ({
          id,
          content,
          lastUsefulAt,
          recallCount,
          supersededBy,
          reason: evictionReason(own, i, kind),
          pin: pinVerdict({ pinned: false, supersededBy }, room),
        })),
        expiringNext:
          rule.ttlSeconds === null
            ? []
            : expiring.map(({ id, content, expiresAt, supersededBy }, i) => ({
                id,
                content,
                expiresAt,
                reason: expiryReason(expiring, i),
                pin: pinVerdict({ pinned: false, supersededBy }, room),
              })),
      };
    });
  }

  /** Every kind's expiry cutoff now. */
  private cutoffs() {
    return expiryCutoffs(this.deps.rules, kindsOf(this.deps.rules), this.now());
  }
}
