import { randomUUID } from 'node:crypto';
import type { Clock } from '../ports/clock.js';
import type { Embedder } from '../ports/embedder.js';
import type { Judge } from '../ports/judge.js';
import type {
  JournalPage,
  MemoryOrder,
  MemoryPage,
  MemoryStore,
  RecallQuery,
  Scope,
  WriterCount,
} from '../ports/memory-store.js';
import { fingerprint } from './canonical.js';
import {
  EmbedderError,
  EmbeddingDimensionError,
  InvalidInputError,
  KindFullError,
  MemoryError,
  PinLimitError,
} from './errors.js';
import { Importer, type ImportReport } from './importer.js';
import { JudgeHealth } from './judge-health.js';
import { LexicalAnalyzer } from './lexical.js';
import { checkText, LIMITS } from './limits.js';
import type { ClientInfo, CurationRules, JudgeOutcome, KindRule, Memory, Principal, RecalledMemory, Source } from './model.js';
import { type Fusion, FUSION, LEXICAL, type LexicalScoring, type RecallRanking, rankingParts } from './ranking.js';
import { expiredBefore, expiryCutoffs, kindRule, recallCandidates } from './rules.js';
import type {
  BrowseInput,
  CurationState,
  ForgetInput,
  ForgetResult,
  JournalDay,
  JournalHour,
  KindOutlook,
  Overview,
  RecallInput,
  RememberInput,
  RememberResult,
} from './service-types.js';

export interface MemoryServiceDeps {
  readonly store: MemoryStore;
  readonly embedder: Embedder;
  readonly judge: Judge;
  readonly clock: Clock;
  readonly rules: CurationRules;
  /** Makes the lexical arm's terms, of memories and of queries alike; language-neutral by default. */
  readonly analyzer?: LexicalAnalyzer;
  /** Which recall arms run; hybrid unless configured otherwise (NAABA_RECALL_RANKING). */
  readonly ranking?: RecallRanking;
  /** How recall scores, when not the tuned defaults of ranking.ts: for the tuning harness (`npm run tune:recall`). */
  readonly scoring?: { readonly fusion: Fusion; readonly lexical: LexicalScoring };
  readonly newId?: () => string;
}

/** How often a remember re-reads after its target vanished between the read and the write. */
const REMEMBER_ATTEMPTS = 3;

const scopeOf = (p: Principal): Scope => ({ region: p.region, userId: p.userId });

const DAY_MS = 86_400_000;
/** Bounds of the memory page's reads: default and maximum. */
const BROWSE_PAGE = { default: 50, max: 100 } as const;
const JOURNAL_DAYS = { default: 30, max: 90 } as const;
const NEXT_TO_GO = { default: 5, max: 50 } as const;
const JOURNAL_HOURS = { default: 24, max: 168 } as const;
const HOUR_MS = 3_600_000;
const ORDERS: readonly MemoryOrder[] = ['created', 'last_useful', 'recalls'];
/** Pages an export reads: memories, then journal lines. */
const EXPORT_PAGE = { memories: 200, journal: 1000 } as const;

const utcDate = (d: Date) => [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()] as const;

/** An optional integer from 1 to `bounds.max`, or the default; anything else is a clear error. */
function boundedInteger(name: string, value: number | undefined, bounds: { default: number; max: number }): number {
  const n = value ?? bounds.default;
  if (!Number.isInteger(n) || n < 1 || n > bounds.max)
    throw new InvalidInputError(`${name} must be an integer from 1 to ${bounds.max}`);
  return n;
}

/** A remember call, checked and embedded, ready to be written. */
interface Draft {
  readonly scope: Scope;
  readonly input: RememberInput;
  readonly rule: KindRule;
  readonly embedding: number[];
  readonly terms: ReadonlyMap<string, number>;
  readonly source: Source;
  readonly fingerprint: string;
}

/** What the duplicate check decided: merge into `target`, link to `conflictsWith`, or store. */
interface Decision {
  readonly verdict: JudgeOutcome | 'exact' | 'not_asked';
  readonly target?: string;
  readonly conflictsWith?: string;
}
const clientLabel = (c: ClientInfo) => `${c.name}/${c.version}`;

/**
 * The one business entry point: remember, recall, forget and curation state, with the curation
 * policy of DESIGN §4 applied over the ports.
 */
export class MemoryService {
  readonly judgeHealth: JudgeHealth;
  readonly analyzer: LexicalAnalyzer;
  private readonly newId: () => string;

  constructor(private readonly deps: MemoryServiceDeps) {
    this.judgeHealth = new JudgeHealth(deps.judge.name);
    this.analyzer = deps.analyzer ?? new LexicalAnalyzer();
    this.newId = deps.newId ?? randomUUID;
  }

  get rules(): CurationRules {
    return this.deps.rules;
  }

  async remember(principal: Principal, client: ClientInfo, input: RememberInput): Promise<RememberResult> {
    const draft = await this.draft(principal, client, input);
    for (let attempt = 1; attempt <= REMEMBER_ATTEMPTS; attempt += 1) {
      const decision = draft.rule.dedup === false ? { verdict: 'not_asked' as const } : await this.decide(draft);
      const result = decision.target
        ? await this.mergeInto(draft, decision.target, decision.verdict)
        : await this.insert(draft, decision);
      if (result) return result;
    }
    throw new MemoryError('the memory to merge into kept disappearing under concurrent changes; nothing was written', {
      retryable: true,
    });
  }

  /** Checks the input and prepares everything a write needs; embeds once, before any database call. */
  private async draft(principal: Principal, client: ClientInfo, input: RememberInput): Promise<Draft> {
    checkText('content', input.content, { bytes: LIMITS.contentBytes });
    const rule = kindRule(this.deps.rules, input.kind);
    const origin = input.origin?.trim() ? input.origin.trim() : null;
    if (origin !== null) checkText('origin', origin, { chars: LIMITS.originChars });
    const embedding = await this.embed(input.content);
    const source: Source = { agent: principal.agent, client: clientLabel(client), origin, at: this.deps.clock.now() };
    const terms = this.analyzer.frequencies(input.content);
    return { scope: scopeOf(principal), input, rule, embedding, terms, source, fingerprint: fingerprint(input.content) };
  }

  /**
   * The duplicate check: an exact restatement merges without a judge; otherwise the judge decides
   * about the nearest live memory. An exact restatement of an expired memory does not revive it:
   * the partition's expired memories are removed first (journaled as expiry), and this one is new.
   */
  private async decide(draft: Draft): Promise<Decision> {
    const now = this.deps.clock.now();
    const expiredBefore = this.expiryOf(draft, now);
    const candidates = recallCandidates(this.deps.rules, [draft.input.kind], 1);
    const near = await this.deps.store.neighbours(draft.scope, draft.input.kind, draft.embedding, draft.fingerprint, {
      expiredBefore,
      candidates,
    });
    if (near.exact?.live) return { verdict: 'exact', target: near.exact.id };
    if (near.exact && expiredBefore) await this.deps.store.expirePartition(draft.scope, draft.input.kind, expiredBefore, now);
    if (!near.nearest) return { verdict: 'not_asked' };
    const verdict = await this.ask(near.nearest.content, draft.input.content);
    if (verdict === 'same') return { verdict, target: near.nearest.id };
    return verdict === 'contradicts' ? { verdict, conflictsWith: near.nearest.id } : { verdict };
  }

  /** Resolves undefined when the target vanished since it was read, so the caller decides again. */
  private async mergeInto(draft: Draft, target: string, verdict: Decision['verdict']): Promise<RememberResult | undefined> {
    const now = this.deps.clock.now();
    const merged = await this.deps.store.merge(
      {
        scope: draft.scope,
        targetId: target,
        kind: draft.input.kind,
        pin: draft.input.pinned ?? false,
        source: draft.source,
        pinLimit: this.deps.rules.pinLimit,
        sourcesKept: LIMITS.sourcesKept,
        expiredBefore: this.expiryOf(draft, now),
      },
      now,
    );
    if (merged.status === 'pin_limit') throw new PinLimitError(this.deps.rules.pinLimit);
    if (merged.status === 'gone') return undefined;
    return { id: merged.id, kind: draft.input.kind, outcome: 'merged', mergedInto: merged.id, evicted: 0, judge: verdict };
  }

  /** Resolves undefined when an expired exact restatement stood in the way (now removed), so the caller decides again. */
  private async insert(draft: Draft, decision: Decision): Promise<RememberResult | undefined> {
    const id = this.newId();
    const now = this.deps.clock.now();
    const expiredBefore = this.expiryOf(draft, now);
    const inserted = await this.deps.store.insert(
      {
        scope: draft.scope,
        id,
        kind: draft.input.kind,
        content: draft.input.content,
        // Without dedup every memory is its own: a fingerprint no other row can share.
        fingerprint: draft.rule.dedup === false ? `${draft.fingerprint}#${id}` : draft.fingerprint,
        embedding: draft.embedding,
        terms: [...draft.terms.keys()],
        frequencies: [...draft.terms.values()],
        pinned: draft.input.pinned ?? false,
        source: draft.source,
        conflictsWith: decision.conflictsWith,
        ceiling: draft.rule.ceiling,
        pinLimit: this.deps.rules.pinLimit,
        sourcesKept: LIMITS.sourcesKept,
        expiredBefore,
      },
      now,
    );
    const kind = draft.input.kind;
    switch (inserted.status) {
      case 'pin_limit':
        throw new PinLimitError(this.deps.rules.pinLimit);
      case 'kind_full':
        throw new KindFullError(kind, draft.rule.ceiling);
      case 'merged':
        return { id: inserted.id, kind, outcome: 'merged', mergedInto: inserted.id, evicted: 0, judge: 'exact' };
      case 'expired_twin':
        if (expiredBefore) await this.deps.store.expirePartition(draft.scope, kind, expiredBefore, now);
        return undefined;
      case 'inserted': {
        const outcome = decision.conflictsWith ? 'conflict' : 'stored';
        return { id, kind, outcome, conflictsWith: decision.conflictsWith, evicted: inserted.evicted, judge: decision.verdict };
      }
    }
  }

  /** The draft's kind's expiry cutoff at `now`, null when the kind never expires. */
  private expiryOf(draft: Draft, now: Date): Date | null {
    return expiredBefore(draft.rule, now);
  }

  async recall(principal: Principal, input: RecallInput): Promise<RecalledMemory[]> {
    return this.deps.store.recall(await this.recallQuery(principal, input));
  }

  /** Recall's ranking for the memory page, writing nothing: looking is not recalling. */
  async search(principal: Principal, input: RecallInput): Promise<RecalledMemory[]> {
    return this.deps.store.search(await this.recallQuery(principal, input));
  }

  /** Checks a recall and turns it into the store's query (one embedding, the configured arms). */
  private async recallQuery(principal: Principal, input: RecallInput): Promise<RecallQuery> {
    checkText('query', input.query, { bytes: LIMITS.queryBytes });
    const kinds = input.kinds && input.kinds.length > 0 ? [...new Set(input.kinds)] : Object.keys(this.deps.rules.kinds);
    const limit = input.limit ?? LIMITS.recallDefault;
    if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.recallMax) {
      throw new InvalidInputError(`limit must be an integer from 1 to ${LIMITS.recallMax}`);
    }
    const now = this.deps.clock.now();
    const embedding = await this.embed(input.query);
    const fusion = this.deps.scoring?.fusion ?? FUSION;
    const depth = Math.max(limit, fusion.depth);
    const ranking = this.deps.ranking ?? 'hybrid';
    const terms = ranking === 'vector' ? [] : this.analyzer.queryTerms(input.query);
    const { vectorWeight, floored, following } = rankingParts(ranking, fusion, terms.length > 0);
    const farthest = floored ? this.deps.embedder.unrelatedBeyond : undefined;
    return {
      scope: scopeOf(principal),
      embedding,
      terms,
      fusion: { ...fusion, depth, vectorWeight, following },
      lexical: this.deps.scoring?.lexical ?? LEXICAL,
      farthest,
      kinds: this.searched(kinds, now),
      limit,
      candidates: recallCandidates(this.deps.rules, kinds, depth),
      now,
    };
  }

  /** Each kind with the instant before which its unpinned memories count as expired; unknown kinds are refused. */
  private searched(kinds: readonly string[], now: Date) {
    return kinds.map((kind) => ({ kind, expiredBefore: expiredBefore(kindRule(this.deps.rules, kind), now) }));
  }

  /** Counts against ceilings per kind, pins against the pin limit, and the providers in use. */
  async overview(principal: Principal): Promise<Overview> {
    const kinds = Object.keys(this.deps.rules.kinds);
    const now = this.deps.clock.now();
    const counts = await this.deps.store.counts(scopeOf(principal), expiryCutoffs(this.deps.rules, kinds, now));
    return {
      kinds: kinds.map((kind) => {
        const rule = kindRule(this.deps.rules, kind);
        const count = counts.perKind[kind] ?? 0;
        return { kind, ceiling: rule.ceiling, ttlSeconds: rule.ttlSeconds, count, pinned: counts.pinnedPerKind[kind] ?? 0 };
      }),
      pinned: counts.pinned,
      pinLimit: this.deps.rules.pinLimit,
      judge: this.judgeHealth.snapshot(),
      embedder: this.deps.embedder.name,
    };
  }

  /** Live memories, filtered, newest first unless another order is asked, paged; reading them changes nothing. */
  async browse(principal: Principal, input: BrowseInput): Promise<MemoryPage> {
    const pageSize = boundedInteger('limit', input.limit, BROWSE_PAGE);
    if (input.order !== undefined && !ORDERS.includes(input.order))
      throw new InvalidInputError(`order must be one of ${ORDERS.join(', ')}`);
    const kinds = input.kind === undefined ? Object.keys(this.deps.rules.kinds) : [input.kind];
    const query = {
      scope: scopeOf(principal),
      kinds: this.searched(kinds, this.deps.clock.now()),
      pageSize,
      cursor: input.cursor,
      order: input.order,
      filters: input.filters,
    };
    return this.deps.store.browse(query);
  }

  /** One live memory of the caller by id (a conflict's other side), or undefined: read only. */
  async memory(principal: Principal, id: string): Promise<Memory | undefined> {
    return this.deps.store.memory(scopeOf(principal), id, this.cutoffs());
  }

  /** Which keys and clients wrote the caller's live memories, with how many each: the page's filters. */
  async writers(principal: Principal): Promise<WriterCount[]> {
    return this.deps.store.writers(
      scopeOf(principal),
      this.searched(Object.keys(this.deps.rules.kinds), this.deps.clock.now()),
      100,
    );
  }

  /**
   * Pins or unpins one memory, as `remember` with `pinned` does but without restating it: within
   * the pin limit, and usefulness untouched (a pin is not a recall). Undefined when the caller has
   * no live memory of that id.
   */
  async setPinned(principal: Principal, id: string, pinned: boolean): Promise<{ pinned: boolean; changed: boolean } | undefined> {
    const pinLimit = this.deps.rules.pinLimit;
    const result = await this.deps.store.setPinned({ scope: scopeOf(principal), id, pinned, pinLimit, expiry: this.cutoffs() });
    if (result.status === 'pin_limit') throw new PinLimitError(pinLimit);
    return result.status === 'gone' ? undefined : { pinned, changed: result.status === 'changed' };
  }

  /** One page of the caller's memories for an export file, newest first; reading them changes nothing. */
  async exportMemories(principal: Principal, cursor: string | undefined): Promise<MemoryPage> {
    const kinds = this.searched(Object.keys(this.deps.rules.kinds), this.deps.clock.now());
    return this.deps.store.browse({ scope: scopeOf(principal), kinds, pageSize: EXPORT_PAGE.memories, cursor });
  }

  /** One page of the caller's journal for an export file, newest first. */
  async exportJournal(principal: Principal, cursor: string | undefined): Promise<JournalPage> {
    return this.deps.store.journal(scopeOf(principal), EXPORT_PAGE.journal, cursor);
  }

  /** Writes an export file into the caller's memory, all of it or nothing (lambda/memory/importer.ts). */
  async importMemories(principal: Principal, file: unknown): Promise<ImportReport> {
    const { store, rules, clock } = this.deps;
    const importer = new Importer({
      store,
      rules,
      clock,
      analyzer: this.analyzer,
      embed: (t) => this.embed(t),
      newId: this.newId,
    });
    return importer.run(scopeOf(principal), file);
  }

  /** Every kind's expiry cutoff now. */
  private cutoffs() {
    return expiryCutoffs(this.deps.rules, Object.keys(this.deps.rules.kinds), this.deps.clock.now());
  }

  /** The journal, newest first, paged as curation_state pages it. */
  async journal(principal: Principal, cursor: string | undefined): Promise<JournalPage> {
    return this.deps.store.journal(scopeOf(principal), LIMITS.journalPageDefault, cursor);
  }

  /** Automatic deletions per UTC day and rule over the last `days` days (today included), oldest first. */
  async journalByDay(principal: Principal, days: number | undefined): Promise<JournalDay[]> {
    const span = boundedInteger('days', days, JOURNAL_DAYS);
    const today = Date.UTC(...utcDate(this.deps.clock.now()));
    const dayOf = (i: number) => new Date(today - (span - 1 - i) * DAY_MS).toISOString().slice(0, 10);
    const counted = await this.deps.store.journalByDay(scopeOf(principal), new Date(today - (span - 1) * DAY_MS));
    return Array.from({ length: span }, (_, i) => {
      const day = dayOf(i);
      const of = (rule: string) => counted.find((c) => c.day === day && c.rule === rule)?.lines ?? 0;
      return { day, ceiling: of('ceiling'), expiry: of('expiry'), duplicate: of('duplicate') };
    });
  }

  /** Automatic deletions per UTC hour and rule over the last `hours` hours (this hour included), oldest first. */
  async journalByHour(principal: Principal, hours: number | undefined): Promise<JournalHour[]> {
    const span = boundedInteger('hours', hours, JOURNAL_HOURS);
    const thisHour = Math.floor(this.deps.clock.now().getTime() / HOUR_MS);
    const first = thisHour - span + 1;
    const counted = await this.deps.store.journalByHour(scopeOf(principal), new Date(first * HOUR_MS));
    return Array.from({ length: span }, (_, i) => {
      const of = (rule: string) => counted.find((c) => c.hour === first + i && c.rule === rule)?.lines ?? 0;
      const hour = new Date((first + i) * HOUR_MS).toISOString();
      return { hour, ceiling: of('ceiling'), expiry: of('expiry'), duplicate: of('duplicate') };
    });
  }

  /** Per kind, what the ceiling evicts first and, for a kind with a TTL, what expires first: forgetting read before it happens. */
  async nextToGo(principal: Principal, limit: number | undefined): Promise<KindOutlook[]> {
    const perKind = boundedInteger('limit', limit, NEXT_TO_GO);
    const kinds = Object.keys(this.deps.rules.kinds);
    const now = this.deps.clock.now();
    const scope = scopeOf(principal);
    const counts = await this.deps.store.counts(scope, expiryCutoffs(this.deps.rules, kinds, now));
    const next = await this.deps.store.nextToGo(scope, this.searched(kinds, now), perKind);
    return kinds.map((kind) => {
      const rule = kindRule(this.deps.rules, kind);
      const ttl = rule.ttlSeconds;
      const own = next.filter((m) => m.kind === kind);
      return {
        kind,
        ceiling: rule.ceiling,
        count: counts.perKind[kind] ?? 0,
        evictNext: own.map(({ id, content, lastUsefulAt, recallCount }) => ({ id, content, lastUsefulAt, recallCount })),
        expiringNext:
          ttl === null
            ? []
            : own.map(({ id, content, lastUsefulAt }) => ({
                id,
                content,
                expiresAt: new Date(lastUsefulAt.getTime() + ttl * 1000),
              })),
      };
    });
  }

  async forget(principal: Principal, input: ForgetInput): Promise<ForgetResult> {
    const scope = scopeOf(principal);
    const expiry = expiryCutoffs(this.deps.rules, Object.keys(this.deps.rules.kinds), this.deps.clock.now());
    if ('all' in input) {
      if (input.kind !== undefined) kindRule(this.deps.rules, input.kind);
      const gone = await this.deps.store.forgetAll(scope, input.kind, expiry);
      return { deleted: [], count: gone.memories, journalLinesRemoved: gone.journalLines };
    }
    if (input.ids.length === 0) throw new InvalidInputError('give at least one id, or all: true');
    if (input.ids.length > LIMITS.forgetIdsMax) {
      throw new InvalidInputError(`at most ${LIMITS.forgetIdsMax} ids per call; got ${input.ids.length}`);
    }
    const deleted = await this.deps.store.forgetIds(scope, [...new Set(input.ids)], expiry);
    return { deleted, count: deleted.length, journalLinesRemoved: 0 };
  }

  async curationState(principal: Principal, page: { cursor?: string; pageSize?: number }): Promise<CurationState> {
    const scope = scopeOf(principal);
    const now = this.deps.clock.now();
    const pageSize = page.pageSize ?? LIMITS.journalPageDefault;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > LIMITS.journalPageMax) {
      throw new InvalidInputError(`page_size must be an integer from 1 to ${LIMITS.journalPageMax}`);
    }
    const kinds = Object.keys(this.deps.rules.kinds);
    const counts = await this.deps.store.counts(scope, expiryCutoffs(this.deps.rules, kinds, now));
    const journal = await this.deps.store.journal(scope, pageSize, page.cursor);
    return {
      rules: this.deps.rules,
      judge: this.judgeHealth.snapshot(),
      embedder: this.deps.embedder.name,
      counts: { perKind: Object.fromEntries(kinds.map((k) => [k, counts.perKind[k] ?? 0])), pinned: counts.pinned },
      journal,
    };
  }

  /** Embeds and checks the response against the dimension invariant; any failure stores nothing. */
  private async embed(text: string): Promise<number[]> {
    let vector: number[];
    try {
      vector = await this.deps.embedder.embed(text);
    } catch (error) {
      if (error instanceof EmbedderError) throw error;
      throw new EmbedderError('the embedding provider failed; nothing was stored, retry later', {
        cause: error,
        retryable: true,
      });
    }
    if (vector.length !== this.deps.embedder.dimensions) {
      throw new EmbeddingDimensionError(this.deps.embedder.dimensions, vector.length, 'in an embedder response');
    }
    if (!vector.every(Number.isFinite)) throw new EmbedderError('the embedder returned a non-finite value; nothing was stored');
    return vector;
  }

  /** Asks the judge; a throw counts as unavailable, so the memory is stored and nothing merged. */
  private async ask(existing: string, incoming: string): Promise<JudgeOutcome> {
    let outcome: JudgeOutcome;
    try {
      outcome = await this.deps.judge.compare(existing, incoming);
    } catch {
      outcome = 'unavailable';
    }
    this.judgeHealth.record(outcome, this.deps.clock.now());
    return outcome;
  }
}
