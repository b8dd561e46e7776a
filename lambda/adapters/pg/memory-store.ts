import { InvalidInputError } from '../../memory/errors.js';
import type { JournalRule, Memory, RecalledMemory, Source } from '../../memory/model.js';
import type {
  BrowseQuery,
  CellBuild,
  CellPartition,
  ExpiryCutoff,
  ImportPlan,
  ImportResult,
  JournalDayCount,
  JournalHourCount,
  InsertPlan,
  InsertResult,
  JournalPage,
  LoadPlan,
  MemoryStore,
  MergePlan,
  MemoryPage,
  MergeResult,
  Neighbours,
  NextToGo,
  PartitionExpiry,
  PinPlan,
  PinResult,
  RecallQuery,
  Scope,
  WriterCount,
} from '../../ports/memory-store.js';
import { browseCursor, browseParams, parseBrowseCursor } from './browse-params.js';
import { importParams, importResult, type ImportRow } from './import-params.js';
import * as sql from './memory-sql.js';
import { type RetryPolicy, withRetry } from './retry.js';
import { asCeilingWrite, asRead, inTransaction, type SqlClient } from './sql-client.js';
import { toVectorLiteral } from './vector.js';
import { checkedTerms } from './lexemes.js';

interface SourceJson {
  agent: string;
  client: string;
  origin: string | null;
  at: string;
}

interface MemoryRow {
  id: string;
  kind: string;
  content: string;
  pinned: boolean;
  created_at: Date;
  last_useful_at: Date;
  recall_count: number;
  restatements: number;
  origin: string | null;
  agent: string;
  client: string;
  restated_by: SourceJson[] | string;
  distance: number;
  score: number;
  conflicts: string[];
}

const sourceJson = (source: Source): string =>
  JSON.stringify({ agent: source.agent, client: source.client, origin: source.origin, at: source.at.toISOString() });

function toMemory(row: Omit<MemoryRow, 'distance' | 'score'>): Memory {
  const restatedBy = typeof row.restated_by === 'string' ? (JSON.parse(row.restated_by) as SourceJson[]) : row.restated_by;
  return {
    id: row.id,
    kind: row.kind,
    content: row.content,
    pinned: row.pinned,
    createdAt: new Date(row.created_at),
    lastUsefulAt: new Date(row.last_useful_at),
    recallCount: row.recall_count,
    restatements: row.restatements,
    source: { agent: row.agent, client: row.client, origin: row.origin, at: new Date(row.created_at) },
    restatedBy: restatedBy.map((s) => ({ agent: s.agent, client: s.client, origin: s.origin, at: new Date(s.at) })),
    conflicts: row.conflicts ?? [],
  };
}

const toRecalled = (row: MemoryRow): RecalledMemory => ({
  ...toMemory(row),
  distance: Number(row.distance),
  score: Number(row.score),
});

/** The kinds' names, then (kind, cutoff) pairs for those with a TTL: how every multi-kind read is parameterised. */
function kindParams(kinds: BrowseQuery['kinds']): { names: string[]; cutoffs: unknown[]; ttl: number } {
  const ttl = kinds.filter((k) => k.expiredBefore !== null);
  return { names: kinds.map((k) => k.kind), cutoffs: ttl.flatMap((k) => [k.kind, k.expiredBefore]), ttl: ttl.length };
}

/** Below every user id: where a walk of the partitions in key order starts. */
const NO_USER = '00000000-0000-0000-0000-000000000000';

/** What a second sweeper seeding one partition's cells meets: the first one's rows. */
const UNIQUE_VIOLATION = '23505';

/** Cosine distance never exceeds 2: a floor there keeps every neighbour. */
const NO_FLOOR = 2;

/** The lexical arm's scoring as the statement takes it: FLOAT8[] {k1, b, common least df, common least share, short length, half length, postings read per term}. */
const lexicalParams = (l: RecallQuery['lexical']) => [
  l.k1,
  l.b,
  l.commonDf,
  l.commonShare,
  l.shortLength,
  l.halfLength,
  l.postingsPerTerm,
];

/** (kind, cutoff) pairs, as the `unexpired` predicate takes them. */
const cutoffParams = (expiry: readonly ExpiryCutoff[]) => expiry.flatMap((e) => [e.kind, e.expiredBefore]);

const cursorOf = (at: Date, id: string) => Buffer.from(`${at.toISOString()}|${id}`).toString('base64url');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A cursor this store made (`cursorOf`), or a clear error: never a crafted value reaching SQL. */
function parseCursor(cursor: string | undefined): [Date | null, string | null] {
  if (!cursor) return [null, null];
  const [at = '', id = '', ...rest] = Buffer.from(cursor, 'base64url').toString().split('|');
  const when = new Date(at);
  if (rest.length > 0 || !ISO_INSTANT.test(at) || Number.isNaN(when.getTime()) || !UUID.test(id)) {
    throw new InvalidInputError('cursor is not one this server gave; pass next_cursor from the previous page, or none');
  }
  return [when, id];
}

/** The memory store over any SQL client: PGlite in-process, PGlite over a socket, PostgreSQL, CockroachDB. */
export class SqlMemoryStore implements MemoryStore {
  constructor(
    private readonly db: SqlClient,
    private readonly retry?: RetryPolicy,
  ) {}

  /**
   * Whether the vector arm reads partitions by cells (decision 0083): on PostgreSQL and PGlite,
   * whose vector arm is otherwise exact; CockroachDB's vector index already reads by prefix.
   */
  private get hasCells(): boolean {
    return this.db.engine !== 'cockroach';
  }

  /** A read, or a write that only removes or adds commutatively: READ COMMITTED where the engine has it. */
  private run<R>(text: string, params: readonly unknown[]): Promise<R[]> {
    return withRetry(() => asRead<R>(this.db, text, params), this.retry);
  }

  /**
   * A write the ceiling or the pin limit depends on (decision 0056). The first attempt runs alone
   * (REPEATABLE READ on PostgreSQL): no extra round trip when nothing contends, and it fails
   * rather than write on stale reads if another writer of the partition committed meanwhile.
   * Later attempts queue: one transaction that first creates or locks the partition's rows
   * (`LOCK_PARTITION`), so that the statement then reads after the previous holder committed.
   * The same on both engines: no advisory locks, which CockroachDB does not have.
   */
  private write<R>(partition: { scope: Scope; kind: string | null; pins: boolean }, text: string, params: readonly unknown[]) {
    const { scope, kind, pins } = partition;
    let attempt = 0;
    return withRetry(() => {
      attempt += 1;
      if (attempt === 1) return asCeilingWrite<R>(this.db, text, params);
      return inTransaction(this.db, async (session) => {
        await session.query(sql.LOCK_PARTITION, [scope.region, scope.userId, kind, pins]);
        return session.query<R>(text, params);
      });
    }, this.retry);
  }

  async neighbours(
    scope: Scope,
    kind: string,
    embedding: readonly number[],
    fingerprint: string,
    expiry: PartitionExpiry,
  ): Promise<Neighbours> {
    const rows = await this.run<{ role: string; id: string; content: string | null; distance: number | null; live: boolean }>(
      sql.NEIGHBOURS,
      [scope.region, scope.userId, kind, toVectorLiteral(embedding), fingerprint, expiry.expiredBefore, expiry.candidates],
    );
    const nearest = rows.find((r) => r.role === 'nearest');
    const exact = rows.find((r) => r.role === 'exact');
    return {
      nearest: nearest ? { id: nearest.id, content: nearest.content ?? '', distance: Number(nearest.distance) } : undefined,
      exact: exact ? { id: exact.id, live: exact.live } : undefined,
    };
  }

  async expirePartition(scope: Scope, kind: string, expiredBefore: Date, now: Date): Promise<number> {
    const [row] = await this.run<{ expired: number }>(sql.EXPIRE_PARTITION, [
      scope.region,
      scope.userId,
      kind,
      expiredBefore,
      now,
    ]);
    return row?.expired ?? 0;
  }

  async insert(plan: InsertPlan, now: Date): Promise<InsertResult> {
    const terms = checkedTerms(plan.terms);
    const frequencies = plan.frequencies ?? terms.map(() => 1);
    if (frequencies.length !== terms.length) throw new Error('a term frequency is needed for each term');
    const [row] = await this.write<{ id: string | null; pin_ok: boolean; room_ok: boolean; evicted: number }>(
      { scope: plan.scope, kind: plan.kind, pins: plan.pinned },
      sql.INSERT,
      [
        plan.scope.region,
        plan.scope.userId,
        plan.kind,
        plan.id,
        plan.content,
        plan.fingerprint,
        toVectorLiteral(plan.embedding),
        plan.pinned,
        now,
        plan.source.origin,
        plan.source.agent,
        plan.source.client,
        sourceJson(plan.source),
        plan.sourcesKept,
        plan.ceiling,
        plan.pinLimit,
        plan.conflictsWith ?? null,
        terms,
        plan.expiredBefore,
        frequencies,
        frequencies.reduce((sum, n) => sum + n, 0),
      ],
    );
    if (!row?.pin_ok) return { status: 'pin_limit' };
    if (!row.room_ok) return { status: 'kind_full' };
    if (row.id === null) return { status: 'expired_twin' };
    return row.id === plan.id ? { status: 'inserted', id: row.id, evicted: row.evicted } : { status: 'merged', id: row.id };
  }

  async load(plan: LoadPlan): Promise<number> {
    const postings = { ids: [] as string[], terms: [] as string[], frequencies: [] as number[] };
    const lengths: number[] = [];
    for (const memory of plan.memories) {
      let length = 0;
      for (const [term, n] of memory.frequencies) {
        postings.ids.push(memory.id);
        postings.terms.push(term);
        postings.frequencies.push(n);
        length += n;
      }
      lengths.push(length);
    }
    const [row] = await this.write<{ written: number }>({ scope: plan.scope, kind: plan.kind, pins: false }, sql.LOAD, [
      plan.scope.region,
      plan.scope.userId,
      plan.kind,
      plan.memories.map((m) => m.id),
      plan.memories.map((m) => m.content),
      plan.memories.map((m) => m.fingerprint),
      plan.memories.map((m) => toVectorLiteral(m.embedding)),
      lengths,
      plan.at,
      postings.ids,
      checkedTerms(postings.terms),
      postings.frequencies,
      plan.expires,
      plan.agent,
      plan.client,
    ]);
    return row?.written ?? 0;
  }

  async merge(plan: MergePlan, now: Date): Promise<MergeResult> {
    const params = [
      plan.scope.region,
      plan.scope.userId,
      plan.targetId,
      plan.pin,
      now,
      sourceJson(plan.source),
      plan.sourcesKept,
      plan.pinLimit,
      plan.expiredBefore,
    ];
    type Merged = { found: number; pin_ok: boolean | null; updated: number };
    // Only a pin is something a limit depends on; a plain merge adds commutatively.
    const [row] = plan.pin
      ? await this.write<Merged>({ scope: plan.scope, kind: null, pins: true }, sql.MERGE, params)
      : await this.run<Merged>(sql.MERGE, params);
    if (!row || row.found === 0) return { status: 'gone' };
    if (!row.pin_ok) return { status: 'pin_limit' };
    return row.updated === 1 ? { status: 'merged', id: plan.targetId } : { status: 'gone' };
  }

  recall(query: RecallQuery): Promise<RecalledMemory[]> {
    return this.ranked(query, true);
  }

  search(query: RecallQuery): Promise<RecalledMemory[]> {
    return this.ranked(query, false);
  }

  /** The fused recall ranking; `touch` marks the returned memories useful. */
  private async ranked(query: RecallQuery, touch: boolean): Promise<RecalledMemory[]> {
    const ttl = query.kinds.filter((k) => k.expiredBefore !== null);
    const lexical = query.terms.length > 0;
    const { depth, k, vectorWeight, lexicalWeight, following, followingShare, followingReach, cellsProbed } = query.fusion;
    const params: unknown[] = [
      query.scope.region,
      query.scope.userId,
      toVectorLiteral(query.embedding),
      query.candidates,
      query.limit,
      query.now,
      depth,
      // No places are read when nothing is to follow.
      [
        k,
        vectorWeight,
        lexicalWeight,
        query.farthest ?? NO_FLOOR,
        followingShare,
        following,
        following > 0 ? followingReach : 0,
        cellsProbed,
      ],
      ...query.kinds.map((kind) => kind.kind),
      ...ttl.flatMap((kind) => [kind.kind, kind.expiredBefore]),
      ...(lexical ? [checkedTerms(query.terms), lexicalParams(query.lexical)] : []),
    ];
    const rows = await this.run<MemoryRow>(sql.recallSql(query.kinds.length, ttl.length, lexical, touch, this.hasCells), params);
    return rows.map(toRecalled);
  }

  async browse(query: BrowseQuery): Promise<MemoryPage> {
    const order = query.order ?? 'created';
    const after = parseBrowseCursor(query.cursor, order);
    const { names, cutoffs, ttl } = kindParams(query.kinds);
    const rows = await this.run<Omit<MemoryRow, 'distance' | 'score'> & { total: number }>(
      sql.browseSql(names.length, ttl, order),
      [query.scope.region, query.scope.userId, query.pageSize + 1, ...browseParams(after, query.filters), ...names, ...cutoffs],
    );
    const page = rows.slice(0, query.pageSize);
    const last = page.at(-1);
    return {
      memories: page.map(toMemory),
      nextCursor: rows.length > query.pageSize && last ? browseCursor(order, last) : undefined,
      total: rows[0]?.total ?? (after ? undefined : 0),
    };
  }

  async memory(scope: Scope, id: string, expiry: readonly ExpiryCutoff[]): Promise<Memory | undefined> {
    if (!UUID.test(id)) return undefined;
    const [row] = await this.run<Omit<MemoryRow, 'distance' | 'score'>>(sql.memoryByIdSql(expiry.length), [
      scope.region,
      scope.userId,
      id,
      ...cutoffParams(expiry),
    ]);
    return row ? toMemory(row) : undefined;
  }

  async writers(scope: Scope, kinds: BrowseQuery['kinds'], limit: number): Promise<WriterCount[]> {
    const { names, cutoffs, ttl } = kindParams(kinds);
    return this.run<WriterCount>(sql.facetsSql(names.length, ttl), [scope.region, scope.userId, limit, ...names, ...cutoffs]);
  }

  async journalByHour(scope: Scope, since: Date): Promise<JournalHourCount[]> {
    const rows = await this.run<{ hour: number | string; rule: string; lines: number }>(sql.JOURNAL_HOURLY, [
      scope.region,
      scope.userId,
      since,
    ]);
    return rows.map((r) => ({ hour: Number(r.hour), rule: r.rule as JournalRule, lines: r.lines }));
  }

  async setPinned(plan: PinPlan): Promise<PinResult> {
    const params = [
      plan.scope.region,
      plan.scope.userId,
      plan.id,
      plan.pinned,
      plan.pinLimit,
      plan.expiry.map((e) => e.kind),
      ...cutoffParams(plan.expiry),
    ];
    type Pinned = { found: number; pin_ok: boolean | null; updated: number };
    const text = sql.setPinnedSql(plan.expiry.length);
    // Only a pin is something the limit depends on; an unpin only lowers the count.
    const [row] = plan.pinned
      ? await this.write<Pinned>({ scope: plan.scope, kind: null, pins: true }, text, params)
      : await this.run<Pinned>(text, params);
    if (!row || row.found === 0) return { status: 'gone' };
    if (!row.pin_ok) return { status: 'pin_limit' };
    return { status: row.updated === 1 ? 'changed' : 'unchanged' };
  }

  async importMemories(plan: ImportPlan): Promise<ImportResult> {
    const kinds = plan.kinds.map((k) => ({ kind: k.kind, expiredBefore: k.expiredBefore }));
    const { names, cutoffs, ttl } = kindParams(kinds);
    const params = [...importParams(plan, checkedTerms), ...names, ...cutoffs];
    const text = sql.importSql(names.length, ttl);
    // Every partition it writes to is a ceiling write's: queued, it locks them all (the user's row first).
    let attempt = 0;
    const [row] = await withRetry(() => {
      attempt += 1;
      if (attempt === 1) return asCeilingWrite<ImportRow>(this.db, text, params);
      return inTransaction(this.db, async (session) => {
        for (const [i, kind] of names.entries()) {
          await session.query(sql.LOCK_PARTITION, [plan.scope.region, plan.scope.userId, kind, i === 0]);
        }
        return session.query<ImportRow>(text, params);
      });
    }, this.retry);
    return importResult(row);
  }

  async journalByDay(scope: Scope, since: Date): Promise<JournalDayCount[]> {
    const rows = await this.run<{ day: string; rule: string; lines: number }>(sql.JOURNAL_DAILY, [
      scope.region,
      scope.userId,
      since,
    ]);
    return rows.map((r) => ({ day: r.day, rule: r.rule as JournalRule, lines: r.lines }));
  }

  async nextToGo(scope: Scope, kinds: BrowseQuery['kinds'], perKind: number): Promise<NextToGo[]> {
    const { names, cutoffs, ttl } = kindParams(kinds);
    const rows = await this.run<{ id: string; kind: string; content: string; last_useful_at: Date; recall_count: number }>(
      sql.nextToGoSql(names.length, ttl),
      [scope.region, scope.userId, perKind, ...names, ...cutoffs],
    );
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      content: r.content,
      lastUsefulAt: new Date(r.last_useful_at),
      recallCount: r.recall_count,
    }));
  }

  async forgetIds(scope: Scope, ids: readonly string[], expiry: readonly ExpiryCutoff[]): Promise<string[]> {
    const rows = await this.run<{ id: string }>(sql.forgetIdsSql(expiry.length), [
      scope.region,
      scope.userId,
      [...ids],
      ...cutoffParams(expiry),
    ]);
    return rows.map((r) => r.id);
  }

  async forgetAll(
    scope: Scope,
    kind: string | undefined,
    expiry: readonly ExpiryCutoff[],
  ): Promise<{ memories: number; journalLines: number }> {
    const [row] = await this.run<{ memories: number; journal_lines: number }>(sql.forgetAllSql(expiry.length, this.hasCells), [
      scope.region,
      scope.userId,
      kind ?? null,
      ...cutoffParams(expiry),
    ]);
    return { memories: row?.memories ?? 0, journalLines: row?.journal_lines ?? 0 };
  }

  async counts(
    scope: Scope,
    expiry: readonly ExpiryCutoff[],
  ): Promise<{ perKind: Record<string, number>; pinned: number; pinnedPerKind: Record<string, number> }> {
    const rows = await this.run<{ kind: string; total: number; pinned: number }>(sql.countsSql(expiry.length), [
      scope.region,
      scope.userId,
      ...cutoffParams(expiry),
    ]);
    const perKind: Record<string, number> = {};
    const pinnedPerKind: Record<string, number> = {};
    for (const row of rows) {
      perKind[row.kind] = row.total;
      pinnedPerKind[row.kind] = row.pinned;
    }
    return { perKind, pinned: rows.reduce((sum, r) => sum + r.pinned, 0), pinnedPerKind };
  }

  async journal(scope: Scope, pageSize: number, cursor: string | undefined): Promise<JournalPage> {
    const [at, id] = parseCursor(cursor);
    const rows = await this.run<{
      line_id: string;
      at: Date;
      kind: string;
      rule: string;
      age_s: number | string;
      recall_count: number;
    }>(sql.JOURNAL_PAGE, [scope.region, scope.userId, pageSize + 1, at, id]);
    const page = rows.slice(0, pageSize);
    const last = page.at(-1);
    return {
      lines: page.map((r) => ({
        at: new Date(r.at),
        kind: r.kind,
        rule: r.rule as 'ceiling' | 'expiry' | 'duplicate',
        ageSeconds: Number(r.age_s),
        recallCount: r.recall_count,
      })),
      nextCursor: rows.length > pageSize && last ? cursorOf(new Date(last.at), last.line_id) : undefined,
    };
  }

  async sweepExpired(region: string, kind: string, expiredBefore: Date, batch: number, now: Date): Promise<number> {
    const [row] = await this.run<{ expired: number }>(sql.SWEEP_EXPIRED, [region, kind, expiredBefore, batch, now]);
    return row?.expired ?? 0;
  }

  async trimJournal(region: string, olderThan: Date, batch: number): Promise<number> {
    const [row] = await this.run<{ trimmed: number }>(sql.TRIM_JOURNAL, [region, olderThan, batch]);
    return row?.trimmed ?? 0;
  }

  async markExpiring(region: string, kind: string, batch: number): Promise<number> {
    return (await this.run<{ '?column?': number }>(sql.MARK_EXPIRING, [region, kind, batch])).length;
  }

  async expiringKinds(region: string): Promise<string[]> {
    const [row] = await this.run<{ value: string }>(sql.EXPIRING_KINDS, []);
    const recorded = row ? (JSON.parse(row.value) as Record<string, string[]>) : {};
    return Object.hasOwn(recorded, region) ? (recorded[region] ?? []) : [];
  }

  async recordExpiringKinds(region: string, kinds: readonly string[]): Promise<void> {
    await this.run(sql.RECORD_EXPIRING_KINDS, [region, JSON.stringify(kinds)]);
  }

  async clearEmptyTerms(region: string, batch: number): Promise<number> {
    return (await this.run<{ '?column?': number }>(sql.CLEAR_EMPTY_TERMS, [region, batch])).length;
  }

  async cellPartitions(region: string, from: number, batch: number, after?: CellPartition): Promise<CellPartition[]> {
    if (!this.hasCells) return [];
    const rows = await this.run<{ user_id: string; kind: string; memories: number; cells_for: number | null }>(
      sql.CELL_PARTITIONS,
      [region, from, after?.userId ?? NO_USER, after?.kind ?? '', batch],
    );
    return rows.map((r) => ({
      userId: r.user_id,
      kind: r.kind,
      memories: Number(r.memories),
      cellsFor: r.cells_for === null ? null : Number(r.cells_for),
    }));
  }

  /**
   * Seeds and refines cells recall does not read yet, then swaps them in with every memory's place
   * in one statement (`SWAP_CELLS`): recalls meanwhile read the old cells, and what is written
   * meanwhile has no cell, so is read exactly until the next sweep.
   */
  async buildCells(scope: Scope, kind: string, build: CellBuild): Promise<boolean> {
    const partition = [scope.region, scope.userId, kind];
    try {
      await this.run(sql.SEED_CELLS, [...partition, build.cells]);
    } catch (error) {
      // Another sweeper seeded the same cells first: it builds them.
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) return false;
      throw error;
    }
    for (let round = 0; round < build.rounds; round += 1) await this.run(sql.REFINE_CELLS, partition);
    const [row] = await this.run<{ built: number }>(sql.SWAP_CELLS, [...partition, build.memories, build.cellsFor]);
    return (row?.built ?? 0) > 0;
  }

  async dropCells(scope: Scope, kind: string, cellsFor: number): Promise<boolean> {
    const [row] = await this.run<{ dropped: number }>(sql.DROP_CELLS, [scope.region, scope.userId, kind, cellsFor]);
    return (row?.dropped ?? 0) > 0;
  }

  async assignCells(scope: Scope, kind: string, batch: number): Promise<number> {
    return (await this.run<{ '?column?': number }>(sql.ASSIGN_CELLS, [scope.region, scope.userId, kind, batch])).length;
  }

  async refreshCells(scope: Scope, kind: string): Promise<void> {
    await this.run(sql.REFRESH_CELLS, [scope.region, scope.userId, kind]);
  }
}
