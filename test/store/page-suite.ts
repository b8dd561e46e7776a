import { randomUUID } from 'node:crypto';
import { sql as sqlText, verbatim } from '../../lambda/adapters/pg/sql/template.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import type { Scope, Source } from '../../lambda/memory/model.js';
import { NO_FLOOR } from '../../lambda/memory/policy/floor.js';
import { FUSION, LEXICAL } from '../../lambda/memory/policy/ranking.js';
import type { InsertPlan } from '../../lambda/ports/curation-store.js';
import type { ImportedMemory, ImportPlan } from '../../lambda/ports/transfer-store.js';
import { axis, lean } from '../support/vectors.js';
import type { StoreHarness } from './harness.js';
import { insertPlan } from './insert-plan.js';

/**
 * The memory page's store calls on every engine the conformance suite runs on: pin and unpin,
 * one memory by id, listing in three orders with filters and totals, who wrote what, the hourly
 * journal, and an import that writes everything or nothing.
 */
export interface PageSuiteContext {
  readonly harness: StoreHarness;
  readonly alice: Scope;
  readonly bob: Scope;
}

const T0 = new Date('2026-03-01T00:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const analyzer = new LexicalAnalyzer();
const FACT = [{ kind: 'fact', expiredBefore: null }];
const source = (agent = 'agent-a', client = 'tests/1', origin: string | null = null): Source => ({
  agent,
  client,
  origin,
  at: T0,
});

export function pageStoreTests(context: () => PageSuiteContext): void {
  const plan = (over: Partial<InsertPlan> & Pick<InsertPlan, 'content' | 'embedding'>): InsertPlan =>
    insertPlan(context().alice, source(), over);
  const insert = async (over: Partial<InsertPlan> & Pick<InsertPlan, 'content' | 'embedding'>, when = T0) => {
    const p = plan(over);
    await context().harness.stores.curation.insert(p, when);
    return p.id;
  };
  const usefulness = async () =>
    (await context().harness.inspect.memories()).map(({ id, recallCount, lastUsefulAt }) => ({ id, recallCount, lastUsefulAt }));
  /** Rows of a table only SQL has (postings, links): -1 in memory, where the inspector's reads cover them. */
  const sqlRows = async (table: string) => {
    const sql = context().harness.sql;
    if (!sql) return -1;
    return (await sql.query<{ n: number }>(sqlText`SELECT count(*)::int4 AS n FROM ${verbatim(table)}`))[0]?.n ?? -1;
  };

  test('pin and unpin: within the limit, one round trip each, usefulness untouched; an unpinned session memory can expire again', async () => {
    const { harness, alice, bob } = context();
    const { page: store, maintenance } = harness.stores;
    const session = await insert({ content: 'the standup moved', embedding: axis(0), kind: 'session', expiredBefore: at(-3600) });
    const fact = await insert({ content: 'a fact', embedding: axis(1) });
    const before = await usefulness();
    const expiry = [{ kind: 'session', expiredBefore: at(-3600) }];
    harness.roundTrips.count = 0;
    expect(await store.setPinned({ scope: alice, id: session, pinned: true, pinLimit: 1, expiry })).toEqual({
      status: 'changed',
    });
    expect(harness.roundTrips.count).toBe(1);
    expect(await store.setPinned({ scope: alice, id: session, pinned: true, pinLimit: 1, expiry })).toEqual({
      status: 'unchanged',
    });
    expect(await store.setPinned({ scope: alice, id: fact, pinned: true, pinLimit: 1, expiry })).toEqual({ status: 'pin_limit' });
    expect(await store.setPinned({ scope: bob, id: fact, pinned: true, pinLimit: 5, expiry })).toEqual({ status: 'gone' });
    const flags = async () => (await harness.inspect.memories()).map(({ id, pinned, expires }) => ({ id, pinned, expires }));
    expect((await flags()).find((r) => r.id === session)).toEqual({ id: session, pinned: true, expires: false });
    expect((await flags()).find((r) => r.id === fact)?.pinned).toBe(false);
    expect(await usefulness()).toEqual(before);
    // Pinned, it outlives its TTL; unpinned, it is back in the expiry index and the sweeper takes it.
    const late = [{ kind: 'session', expiredBefore: at(10) }];
    expect(await maintenance.sweepExpired(alice.region, 'session', at(10), 10, at(100))).toBe(0);
    expect(await store.setPinned({ scope: alice, id: session, pinned: false, pinLimit: 1, expiry: late })).toEqual({
      status: 'changed',
    });
    expect((await flags()).find((r) => r.id === session)?.expires).toBe(true);
    expect(await maintenance.sweepExpired(alice.region, 'session', at(10), 10, at(100))).toBe(1);
    expect(await store.setPinned({ scope: alice, id: fact, pinned: true, pinLimit: 1, expiry: late })).toEqual({
      status: 'changed',
    });
  });

  test('pin and unpin several: every one or none, one round trip, usefulness untouched', async () => {
    const { harness, alice, bob } = context();
    const { page: store } = harness.stores;
    const session = await insert({ content: 'the standup moved', embedding: axis(0), kind: 'session', expiredBefore: at(-3600) });
    const a = await insert({ content: 'fact a', embedding: axis(1) });
    const b = await insert({ content: 'fact b', embedding: axis(2) });
    const third = await insert({ content: 'fact c', embedding: axis(3) });
    const stale = await insert({ content: 'the old plan', embedding: axis(4), kind: 'session', expiredBefore: at(-3600) });
    const before = await usefulness();
    const expiry = [{ kind: 'session', expiredBefore: at(-3600) }];
    const pins = async () =>
      (await harness.inspect.memories())
        .filter((m) => m.pinned)
        .map((m) => m.id)
        .sort();
    const sorted = (...ids: string[]) => [...ids].sort();
    const set = (ids: string[], pinned: boolean, pinLimit: number, scope = alice, cutoffs = expiry) =>
      store.setPinnedMany({ scope, ids, pinned, pinLimit, expiry: cutoffs });

    harness.roundTrips.count = 0;
    expect(await set([session, a, a.toUpperCase()], true, 2)).toEqual({ status: 'changed', changed: sorted(session, a) });
    expect(harness.roundTrips.count).toBe(1);
    // Already pinned costs nothing, even at the limit; one more passes it and nothing changes.
    expect(await set([session, a], true, 2)).toEqual({ status: 'changed', changed: [] });
    expect(await set([a, b, third], true, 3)).toEqual({ status: 'pin_limit' });
    expect(await pins()).toEqual(sorted(session, a));
    // One id gone (another user's, unknown, or expired) and nothing changes.
    const unknown = randomUUID();
    expect(await set([third, unknown], true, 10)).toEqual({ status: 'gone' });
    expect(await set([third], true, 10, bob)).toEqual({ status: 'gone' });
    expect(await set([third, 'not-an-id'], true, 10)).toEqual({ status: 'gone' });
    expect(await set([third, stale], true, 10, alice, [{ kind: 'session', expiredBefore: at(10) }])).toEqual({ status: 'gone' });
    expect(await pins()).toEqual(sorted(session, a));
    // Unpinned, a session memory goes back into the expiry index; usefulness never moved.
    expect(await set([session, a, third], false, 2)).toEqual({ status: 'changed', changed: sorted(session, a) });
    expect(await pins()).toEqual([]);
    expect((await harness.inspect.memories()).find((m) => m.id === session)?.expires).toBe(true);
    expect(await usefulness()).toEqual(before);
  });

  // Each set fits the limit alone, any two together would pass it: overlapping sets meet on a
  // memory, disjoint ones only on the user's partition row, which every pin writes.
  test.each([
    {
      sets: 'two overlapping',
      racing: [
        [0, 1, 2],
        [2, 3, 4],
      ],
      pinLimit: 4,
      rounds: 4,
    },
    // Without the partition row, about one round in four on PostgreSQL ended past the limit.
    {
      sets: 'four disjoint',
      racing: [
        [0, 1],
        [2, 3],
        [4, 5],
        [6, 7],
      ],
      pinLimit: 3,
      rounds: 12,
    },
  ])(
    '$sets sets pinned at once at the limit: one wins whole, the others change nothing',
    async ({ racing, pinLimit, rounds }) => {
      const { harness, alice } = context();
      const { page: store } = harness.stores;
      const ids: string[] = [];
      for (let i = 0; i < 8; i += 1) ids.push(await insert({ content: `fact ${i}`, embedding: axis(i) }));
      const pins = async () =>
        (await harness.inspect.memories())
          .filter((m) => m.pinned)
          .map((m) => m.id)
          .sort();
      for (let round = 0; round < rounds; round += 1) {
        // Each round starts another set first.
        const sets = racing.map((_, i) => (racing[(i + round) % racing.length] ?? []).map((place) => ids[place] ?? ''));
        const outcomes = await Promise.all(
          sets.map((set) => store.setPinnedMany({ scope: alice, ids: set, pinned: true, pinLimit, expiry: [] })),
        );
        expect(outcomes.filter((o) => o.status === 'changed')).toHaveLength(1);
        expect(outcomes.filter((o) => o.status === 'pin_limit')).toHaveLength(racing.length - 1);
        const winner = sets[outcomes.findIndex((o) => o.status === 'changed')] ?? [];
        expect(await pins()).toEqual([...winner].sort());
        expect(await store.setPinnedMany({ scope: alice, ids, pinned: false, pinLimit, expiry: [] })).toMatchObject({
          status: 'changed',
        });
      }
    },
  );

  test('one memory by id, with its conflict links: the caller’s live ones only', async () => {
    const { harness, alice, bob } = context();
    const store = harness.stores.page;
    const first = await insert({ content: 'the office opens at eight', embedding: axis(0) });
    const second = await insert({ content: 'the office opens at nine', embedding: axis(1), conflictsWith: first });
    const session = await insert({ content: 'gone soon', embedding: axis(2), kind: 'session', expiredBefore: at(-60) });
    const got = await store.memory(alice, first, []);
    expect([got?.content, got?.conflicts]).toEqual(['the office opens at eight', [second]]);
    expect(await store.memory(bob, first, [])).toBeUndefined();
    expect(await store.memory(alice, randomUUID(), [])).toBeUndefined();
    expect(await store.memory(alice, 'not-a-uuid', [])).toBeUndefined();
    expect((await store.memory(alice, session, [{ kind: 'session', expiredBefore: at(-60) }]))?.id).toBe(session);
    expect(await store.memory(alice, session, [{ kind: 'session', expiredBefore: at(60) }])).toBeUndefined();
  });

  test('listing: three orders page without loss, totals follow the filters, a cursor of another order is refused', async () => {
    const { harness, alice, bob } = context();
    const store = harness.stores.page;
    const a = await insert({ content: 'alpha', embedding: axis(0), source: source('laptop', 'cli/1', 'chat 12') }, at(0));
    const b = await insert(
      { content: 'beta', embedding: axis(1), source: source('laptop', 'ide/2', 'Chat 13'), pinned: true },
      at(10),
    );
    const c = await insert(
      { content: 'gamma', embedding: axis(2), source: source('phone', 'ide/2', null), conflictsWith: a },
      at(20),
    );
    const d = await insert({ content: 'delta', embedding: axis(3), source: source('phone', 'ide/2', 'mail') }, at(30));
    await insert({ scope: bob, content: 'bob', embedding: axis(0) });
    await harness.stores.curation.recall({
      scope: alice,
      embedding: axis(1),
      terms: [],
      fusion: FUSION,
      lexical: LEXICAL,
      farthest: NO_FLOOR,
      kinds: FACT,
      limit: 1,
      candidates: 10,
      now: at(40),
    });
    const all = async (order: 'created' | 'last_useful' | 'recalls', filters = {}) => {
      const ids: string[] = [];
      const totals: (number | undefined)[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.browse({ scope: alice, kinds: FACT, pageSize: 1, cursor, order, filters });
        ids.push(...page.memories.map((m) => m.id));
        totals.push(page.total);
        cursor = page.nextCursor;
      } while (cursor);
      return { ids, totals: [...new Set(totals)] };
    };
    expect(await all('created')).toEqual({ ids: [d, c, b, a], totals: [4] });
    expect((await all('last_useful')).ids).toEqual([b, d, c, a]);
    expect((await all('recalls')).ids[0]).toBe(b);
    expect(new Set((await all('recalls')).ids)).toEqual(new Set([a, b, c, d]));
    expect(await all('created', { agent: 'laptop' })).toEqual({ ids: [b, a], totals: [2] });
    expect((await all('created', { client: 'ide/2', agent: 'phone' })).ids).toEqual([d, c]);
    expect((await all('created', { origin: 'CHAT' })).ids).toEqual([b, a]);
    expect((await all('created', { pinned: true })).ids).toEqual([b]);
    expect((await all('created', { pinned: false, conflicting: true })).ids).toEqual([c, a]);
    expect((await all('created', { conflicting: false })).ids).toEqual([d, b]);
    expect(
      await store.browse({ scope: alice, kinds: FACT, pageSize: 5, cursor: undefined, filters: { agent: 'nobody' } }),
    ).toEqual({
      memories: [],
      nextCursor: undefined,
      total: 0,
    });
    const recalls = await store.browse({ scope: alice, kinds: FACT, pageSize: 1, cursor: undefined, order: 'recalls' });
    await expect(
      store.browse({ scope: alice, kinds: FACT, pageSize: 1, cursor: recalls.nextCursor, order: 'created' }),
    ).rejects.toThrow('cursor is not one this server gave');
  });

  test('who wrote the memories, most first; journal lines per hour and rule', async () => {
    const { harness, alice } = context();
    const store = harness.stores.page;
    await insert({ content: 'one', embedding: axis(0), source: source('laptop', 'cli/1'), ceiling: 2 }, at(0));
    await insert({ content: 'two', embedding: axis(1), source: source('laptop', 'cli/1'), ceiling: 2 }, at(10));
    await insert({ content: 'three', embedding: axis(2), source: source('phone', 'app/3'), ceiling: 2 }, at(3600 + 5));
    expect(await store.writers(alice, FACT, 10)).toEqual([
      { agent: 'laptop', client: 'cli/1', memories: 1 },
      { agent: 'phone', client: 'app/3', memories: 1 },
    ]);
    const hour0 = Math.floor(T0.getTime() / 3_600_000);
    expect(await store.journalByHour(alice, at(-3600))).toEqual([{ hour: hour0 + 1, rule: 'ceiling', lines: 1 }]);
  });

  describe('import', () => {
    const memory = (over: Partial<ImportedMemory> & Pick<ImportedMemory, 'content'>): ImportedMemory => ({
      id: randomUUID(),
      kind: 'fact',
      fingerprint: over.content,
      embedding: lean(0, 1, 0.3),
      frequencies: analyzer.frequencies(over.content),
      pinned: false,
      expires: false,
      createdAt: at(-86_400),
      lastUsefulAt: at(-3600),
      recallCount: 4,
      restatements: 2,
      source: { agent: 'old-laptop', client: 'cursor/1.2', origin: 'a chat about ferries' },
      restatedBy: [{ agent: 'old-laptop', client: 'cursor/1.2', origin: 'again', at: at(-7200) }],
      ...over,
    });
    const importPlan = (scope: Scope, memories: ImportedMemory[], over: Partial<ImportPlan> = {}): ImportPlan => ({
      scope,
      kinds: [
        { kind: 'fact', ceiling: 3, expiredBefore: null },
        { kind: 'session', ceiling: 3, expiredBefore: at(-86_400) },
      ],
      pinLimit: 2,
      memories,
      links: [],
      journal: [],
      ...over,
    });

    test('imported memories take the places after those already in their origin, in the order they were written', async () => {
      const { harness, alice } = context();
      const store = harness.stores.transfer;
      const chat = { agent: 'old-laptop', client: 'cursor/1.2', origin: 'a chat about ferries' };
      await insert({ content: 'already here', embedding: axis(0), source: { ...chat, at: T0 } }, at(0));
      // Ids in the opposite order to the times, and the later one first in the file: only time decides.
      const later = memory({ content: 'written second', createdAt: at(-100), id: '00000000-0000-4000-8000-000000000001' });
      const earlier = memory({ content: 'written first', createdAt: at(-200), id: 'ffffffff-ffff-4fff-bfff-ffffffffffff' });
      const elsewhere = memory({ content: 'another origin', source: { ...chat, origin: 'a chat about trains' } });
      const none = memory({ content: 'no origin', source: { ...chat, origin: null } });
      const roomy = { kinds: [{ kind: 'fact', ceiling: 10, expiredBefore: null }] };
      expect(await store.importMemories(importPlan(alice, [later, earlier, elsewhere, none], roomy))).toMatchObject({
        written: 4,
      });
      const text = (a: string | null) => a ?? '\uffff';
      const places = (await harness.inspect.memories()).sort(
        (p, q) =>
          text(p.origin).localeCompare(text(q.origin), 'en') ||
          (p.originSeq ?? Number.MAX_SAFE_INTEGER) - (q.originSeq ?? Number.MAX_SAFE_INTEGER) ||
          p.content.localeCompare(q.content, 'en'),
      );
      expect(places.map((r) => [r.content, r.originSeq === null ? null : String(r.originSeq)])).toEqual([
        ['already here', '1'],
        ['written first', '2'],
        ['written second', '3'],
        ['another origin', '1'],
        ['no origin', null],
      ]);
    });

    test('everything a memory had arrives, links and journal lines too; a second import writes nothing new', async () => {
      const { harness, alice } = context();
      const { transfer: store, page, curation } = harness.stores;
      const x = memory({ content: 'The ferry leaves at nine.', pinned: true });
      const y = memory({ content: 'The ferry leaves at ten.', recallCount: 0, restatements: 1, restatedBy: [] });
      const line = { at: at(-5000), kind: 'session', rule: 'expiry' as const, ageSeconds: 90_000, recallCount: 1 };
      const links: [string, string][] = [
        [x.id, y.id],
        [y.id, x.id],
      ];
      harness.roundTrips.count = 0;
      const first = await store.importMemories(importPlan(alice, [x, y], { links, journal: [line, line] }));
      expect(harness.roundTrips.count).toBe(1);
      expect(first).toEqual({ status: 'imported', written: 2, alreadyPresent: 0, links: 2, journalLines: 2 });
      const listed = (await page.browse({ scope: alice, kinds: FACT, pageSize: 10, cursor: undefined })).memories;
      const got = listed.find((m) => m.id === x.id);
      expect(got).toEqual({
        id: x.id,
        kind: 'fact',
        content: x.content,
        pinned: true,
        createdAt: x.createdAt,
        lastUsefulAt: x.lastUsefulAt,
        recallCount: 4,
        restatements: 2,
        source: { ...x.source, at: x.createdAt },
        restatedBy: x.restatedBy,
        conflicts: [y.id],
        supersededBy: null,
        supersededAt: null,
        supersedes: [],
      });
      expect((await curation.journal(alice, 10, undefined)).lines).toHaveLength(2);
      // The same file again (new ids, as every import gives): nothing new, and links go to what is there.
      const again = await store.importMemories(
        importPlan(
          alice,
          [
            { ...x, id: randomUUID() },
            { ...y, id: randomUUID() },
          ],
          { journal: [line] },
        ),
      );
      expect(again).toEqual({ status: 'imported', written: 0, alreadyPresent: 2, links: 0, journalLines: 0 });
      expect(await harness.inspect.count('memories')).toBe(2);
      const lexical = await page.search({
        scope: alice,
        embedding: axis(7),
        terms: analyzer.queryTerms('ferry ten'),
        fusion: FUSION,
        lexical: LEXICAL,
        farthest: NO_FLOOR,
        kinds: FACT,
        limit: 1,
        candidates: 10,
        now: T0,
      });
      expect(lexical.map((m) => m.id)).toEqual([y.id]);
    });

    test('an import in steps: a check writes nothing, steps write memories, the last step links what is there', async () => {
      const { harness, alice } = context();
      const store = harness.stores.transfer;
      const x = memory({ content: 'The boat leaves at nine.' });
      const y = memory({ content: 'The boat leaves at ten.' });
      const line = { at: at(-50), kind: 'fact', rule: 'ceiling' as const, ageSeconds: 50, recallCount: 0 };
      const links: [string, string][] = [
        [x.id, y.id],
        [y.id, x.id],
      ];
      const check = await store.importMemories(importPlan(alice, [x, y], { writeMemories: false }));
      expect(check).toEqual({ status: 'imported', written: 0, alreadyPresent: 0, links: 0, journalLines: 0 });
      expect(await harness.inspect.count('memories')).toBe(0);
      // Past the ceiling of 3, the check says so, as a write would.
      const four = ['a', 'b', 'c', 'd'].map((content) => memory({ content }));
      expect(await store.importMemories(importPlan(alice, four, { writeMemories: false }))).toMatchObject({ status: 'refused' });
      for (const step of [[x], [y]]) {
        expect(await store.importMemories(importPlan(alice, step))).toMatchObject({ status: 'imported', written: 1 });
      }
      const last = await store.importMemories(importPlan(alice, [x, y], { links, journal: [line], writeMemories: false }));
      expect(last).toEqual({ status: 'imported', written: 0, alreadyPresent: 2, links: 2, journalLines: 1 });
      expect(await harness.inspect.count('memories')).toBe(2);
    });

    test('past a ceiling or the pin limit nothing at all is written, and the answer says by how much', async () => {
      const { harness, alice, bob } = context();
      const store = harness.stores.transfer;
      await insert({ content: 'already here', embedding: axis(5) });
      await insert({ content: 'pinned already', embedding: axis(6), pinned: true });
      const three = ['one', 'two', 'three'].map((content) => memory({ content }));
      const tables = async () => [
        await harness.inspect.memories(),
        await harness.inspect.journal(),
        ...(await Promise.all(['memory_terms', 'memory_links'].map(sqlRows))),
      ];
      const before = await tables();
      const line = { at: at(-5), kind: 'fact', rule: 'ceiling' as const, ageSeconds: 5, recallCount: 0 };
      expect(await store.importMemories(importPlan(alice, three, { journal: [line] }))).toEqual({
        status: 'refused',
        kinds: [
          { kind: 'fact', have: 2, adding: 3 },
          { kind: 'session', have: 0, adding: 0 },
        ],
        pins: { have: 1, adding: 0 },
      });
      const pins = ['p', 'q'].map((content) => memory({ content, pinned: true }));
      expect(await store.importMemories(importPlan(alice, pins))).toMatchObject({
        status: 'refused',
        pins: { have: 1, adding: 2 },
      });
      expect(await tables()).toEqual(before);
      // Another user has room: isolation is the scope's.
      expect(await store.importMemories(importPlan(bob, three))).toMatchObject({ status: 'imported', written: 3 });
    });

    test('expired memories not yet removed take no room: an import fits beside the live ones, and a refusal counts only those', async () => {
      const { harness, alice } = context();
      const store = harness.stores.transfer;
      // Two session memories past the import's cutoff (a day ago) and one live: three rows, one live.
      const long = at(-200_000);
      await insert({ content: 'old standup', embedding: axis(1), kind: 'session', expiredBefore: long }, at(-90_000));
      await insert({ content: 'older standup', embedding: axis(2), kind: 'session', expiredBefore: long }, at(-89_000));
      await insert({ content: 'this standup', embedding: axis(3), kind: 'session', expiredBefore: long });
      expect(await harness.inspect.count('memories')).toBe(3);
      const sessions = (...contents: string[]) => contents.map((content) => memory({ content, kind: 'session' }));
      // The ceiling of 3 holds 1 live + 2 new, though the partition has 3 rows already.
      expect(await store.importMemories(importPlan(alice, sessions('a', 'b')))).toMatchObject({ status: 'imported', written: 2 });
      expect(await store.importMemories(importPlan(alice, sessions('c')))).toEqual({
        status: 'refused',
        kinds: [
          { kind: 'fact', have: 0, adding: 0 },
          { kind: 'session', have: 3, adding: 1 },
        ],
        pins: { have: 0, adding: 0 },
      });
      expect(await harness.inspect.count('memories')).toBe(5);
    });
  });
}
