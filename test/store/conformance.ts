import { randomUUID } from 'node:crypto';
import { hashToken } from '../../lambda/auth/token.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import type { Scope, Source } from '../../lambda/memory/model.js';
import { NO_FLOOR } from '../../lambda/memory/policy/floor.js';
import { FUSION, LEXICAL, lengthScaled, type RecallRanking, rankingParts } from '../../lambda/memory/policy/ranking.js';
import { WORDS_READ } from '../../lambda/memory/policy/supersession.js';
import type { CurationStore, InsertPlan, RecallQuery } from '../../lambda/ports/curation-store.js';
import type { KeyStore } from '../../lambda/ports/key-store.js';
import type { MaintenanceStore } from '../../lambda/ports/maintenance-store.js';
import type { OAuthStore } from '../../lambda/ports/oauth-store.js';
import type { PageStore } from '../../lambda/ports/page-store.js';
import { axis, lean } from '../support/vectors.js';
import { cellsStoreTests } from './cells-suite.js';
import { insertPlan } from './insert-plan.js';
import type { InspectedTable, StoreHarness } from './harness.js';
import { pageStoreTests } from './page-suite.js';
import { passagesStoreTests } from './passages-suite.js';
import { supersessionStoreTests } from './supersession-suite.js';

/**
 * The store conformance suite: every engine the stores run on must pass it unchanged — the
 * in-memory reference store, PGlite, PostgreSQL (over `pg`), and CockroachDB when a URL is given.
 * It reads and writes through the ports only; what the ports do not show it reads through the
 * harness's inspector (harness.ts).
 */

const T0 = new Date('2026-03-01T00:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const analyzer = new LexicalAnalyzer();
const NO_EXPIRY = { expiredBefore: null, candidates: 1 };
const source = (origin: string | null = null, when = T0): Source => ({ agent: 'agent-a', client: 'tests/1', origin, at: when });

/**
 * Registers the suite for one engine. `kind` says what it is before it is opened: the vector cells
 * (decision 0083) are SQL's, so their tests run on the SQL engines only.
 */
export function storeSuite(name: string, kind: 'memory' | 'sql', open: () => Promise<StoreHarness>): void {
  describe(`store conformance: ${name}`, () => {
    let harness: StoreHarness;
    let curation: CurationStore;
    let page: PageStore;
    let maintenance: MaintenanceStore;
    let keys: KeyStore;
    let alice: Scope;
    let bob: Scope;

    const plan = (over: Partial<InsertPlan> & Pick<InsertPlan, 'content' | 'embedding'>): InsertPlan =>
      insertPlan(alice, source(), over);

    /**
     * A recall by vector alone unless terms are given (then both arms, fused); `ranking` as the
     * service turns NAABA_RECALL_RANKING into terms and weights.
     */
    const recall = ({
      ranking = 'hybrid',
      ...q
    }: Omit<RecallQuery, 'terms' | 'fusion' | 'lexical' | 'farthest'> & Partial<RecallQuery> & { ranking?: RecallRanking }) => {
      const terms = ranking === 'vector' ? [] : (q.terms ?? []);
      const { vectorWeight, following } = rankingParts(ranking, FUSION, terms.length > 0);
      return curation.recall({
        fusion: { ...FUSION, depth: Math.max(q.limit, FUSION.depth), vectorWeight, following },
        lexical: LEXICAL,
        farthest: NO_FLOOR,
        ...q,
        terms,
      });
    };

    const count = (table: InspectedTable) => harness.inspect.count(table);

    beforeAll(async () => {
      harness = await open();
      ({ curation, page, maintenance } = harness.stores);
      keys = harness.keys;
    });
    afterAll(async () => harness.close());
    beforeEach(async () => {
      await harness.reset();
      alice = { region: 'eu-central-1', userId: randomUUID() };
      bob = { region: 'eu-central-1', userId: randomUUID() };
      harness.roundTrips.count = 0;
    });

    test('api keys: stored by hash, found, revoked, listed', async () => {
      const key = {
        keyId: randomUUID(),
        name: 'agent',
        userId: alice.userId,
        region: 'eu-central-1',
        createdAt: T0,
        revokedAt: null,
        clientId: null,
      };
      await keys.insert({ ...key, tokenSha256: 'ab'.repeat(32) });
      expect(await keys.liveKeyHashes()).toEqual(['ab'.repeat(32)]);
      expect(await keys.findByHash('ab'.repeat(32))).toEqual({ ...key, grantedBy: null });
      expect(await keys.findByHash('cd'.repeat(32))).toBeUndefined();
      expect(await keys.userExists(alice.userId, 'eu-central-1')).toBe(true);
      expect(await keys.userExists(alice.userId, 'us-east-1')).toBe(false);
      expect(await keys.revoke(key.keyId, at(5))).toBe(true);
      expect(await keys.revoke(randomUUID(), at(5))).toBe(false);
      expect((await keys.list()).map((k) => k.revokedAt)).toEqual([at(5)]);
      expect(await keys.liveKeyHashes()).toEqual([]);
    });

    test('neighbours: the nearest of the same user and kind, and the exact restatement', async () => {
      await curation.insert(plan({ content: 'a', embedding: axis(0) }), T0);
      await curation.insert(plan({ content: 'b', embedding: axis(1) }), T0);
      await curation.insert(plan({ content: 'c', embedding: axis(2), kind: 'event' }), T0);
      await curation.insert(plan({ scope: bob, content: 'd', embedding: lean(1, 0, 0.01) }), T0);
      harness.roundTrips.count = 0;
      const near = await curation.neighbours({
        scope: alice,
        kind: 'fact',
        embedding: lean(1, 0, 0.2),
        fingerprint: 'a',
        ...NO_EXPIRY,
      });
      expect(harness.roundTrips.count).toBe(1);
      expect(near.nearest?.content).toBe('b');
      expect(near.nearest?.distance).toBeCloseTo(1 - 1 / Math.hypot(1, 0.2), 5);
      expect(near.exact).toBeDefined();
      expect(
        await curation.neighbours({ scope: bob, kind: 'event', embedding: axis(2), fingerprint: 'x', ...NO_EXPIRY }),
      ).toEqual({ nearest: undefined, candidates: [], exact: undefined });
    });

    test('neighbours: of a rarest word held by more than WORDS_READ memories, its best holders are read (decision 0167)', async () => {
      // Holders of "quokka" once each, with the lowest ids; then two that hold it most, with the highest.
      const filler = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      for (let i = 0; i < WORDS_READ + 10; i += 1) {
        await curation.insert(
          plan({ id: filler(i), content: `A quokka was seen by the river, sighting ${i}.`, embedding: axis(1) }),
          T0,
        );
      }
      const most = 'Quokka quokka quokka.';
      await curation.insert(plan({ id: 'ffffffff-ffff-4fff-8fff-000000000001', content: most, embedding: axis(0) }), T0);
      await curation.insert(
        plan({ id: 'ffffffff-ffff-4fff-8fff-000000000002', content: 'Quokka, quokka.', embedding: lean(0, 1, 0.5) }),
        T0,
      );
      const near = await curation.neighbours({
        scope: alice,
        kind: 'fact',
        embedding: axis(0),
        fingerprint: 'new',
        terms: analyzer.terms('quokka'),
        ...NO_EXPIRY,
      });
      expect(near.byWords?.content).toBe(most);
    });

    test('insert past the ceiling evicts the least recently useful, journaled without content, in one round trip', async () => {
      const old = await curation.insert(plan({ content: 'old but recalled', embedding: axis(0) }), at(0));
      await curation.insert(plan({ content: 'newer never recalled', embedding: axis(1) }), at(10));
      await recall({
        scope: alice,
        embedding: axis(0),
        kinds: [{ kind: 'fact', expiredBefore: null }],
        limit: 1,
        candidates: 1,
        now: at(20),
      });
      harness.roundTrips.count = 0;
      const result = await curation.insert(plan({ content: 'newest', embedding: axis(2), ceiling: 2 }), at(30));
      expect(harness.roundTrips.count).toBe(1);
      expect(result).toMatchObject({ status: 'inserted', evicted: 1 });
      const left = await recall({
        scope: alice,
        embedding: axis(0),
        kinds: [{ kind: 'fact', expiredBefore: null }],
        limit: 10,
        candidates: 10,
        now: at(31),
      });
      expect(left.map((m) => m.content).sort()).toEqual(['newest', 'old but recalled']);
      expect(old.status).toBe('inserted');
      const lines = await harness.inspect.journal();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ kind: 'fact', rule: 'ceiling', recallCount: 0, ageSeconds: 20 });
    });

    test('pinned memories are never evicted; a kind full of pins refuses the write', async () => {
      await curation.insert(plan({ content: 'pinned', embedding: axis(0), pinned: true }), at(0));
      await curation.insert(plan({ content: 'loose', embedding: axis(1) }), at(1));
      expect(await curation.insert(plan({ content: 'third', embedding: axis(2), ceiling: 2 }), at(2))).toMatchObject({
        evicted: 1,
      });
      const full = plan({ content: 'fourth', embedding: axis(3), ceiling: 1 });
      expect(await curation.insert(full, at(3))).toEqual({ status: 'kind_full' });
      expect(await count('memories')).toBe(2);
    });

    test('the pin limit holds on insert and on merge, and nothing is written past it', async () => {
      await curation.insert(plan({ content: 'p1', embedding: axis(0), pinned: true, pinLimit: 1 }), T0);
      expect(await curation.insert(plan({ content: 'p2', embedding: axis(1), pinned: true, pinLimit: 1 }), T0)).toEqual({
        status: 'pin_limit',
      });
      const loose = await curation.insert(plan({ content: 'l', embedding: axis(2) }), T0);
      if (loose.status !== 'inserted') throw new Error('setup');
      const merge = {
        scope: alice,
        targetId: loose.id,
        kind: 'fact',
        pin: 'pin' as const,
        source: source('x'),
        pinLimit: 1,
        sourcesKept: 3,
        expiredBefore: null,
      };
      expect(await curation.merge(merge, at(1))).toEqual({ status: 'pin_limit' });
      expect(await count('memories')).toBe(2);
      expect(await count('journal')).toBe(0);
    });

    test('merge absorbs a restatement: count, bounded newest-first sources, usefulness, journal line', async () => {
      const first = await curation.insert(plan({ content: 'fact', embedding: axis(0), source: source('o0') }), T0);
      if (first.status !== 'inserted') throw new Error('setup');
      harness.roundTrips.count = 0;
      for (let i = 1; i <= 4; i += 1) {
        const merged = await curation.merge(
          {
            scope: alice,
            targetId: first.id,
            kind: 'fact',
            pin: i === 4 ? 'pin' : 'keep',
            source: source(`o${i}`, at(i)),
            pinLimit: 10,
            sourcesKept: 3,
            expiredBefore: null,
          },
          at(i),
        );
        expect(merged).toEqual({ status: 'merged', id: first.id });
      }
      expect(harness.roundTrips.count).toBe(4);
      const [m] = await recall({
        scope: alice,
        embedding: axis(0),
        kinds: [{ kind: 'fact', expiredBefore: null }],
        limit: 1,
        candidates: 1,
        now: at(9),
      });
      expect(m).toMatchObject({ restatements: 5, pinned: true, source: { origin: 'o0' } });
      expect(m?.restatedBy.map((s) => s.origin)).toEqual(['o4', 'o3', 'o2']);
      expect(await count('journal')).toBe(4);
      expect(
        await curation.merge(
          {
            scope: bob,
            targetId: first.id,
            kind: 'fact',
            pin: 'keep',
            source: source(),
            pinLimit: 10,
            sourcesKept: 3,
            expiredBefore: null,
          },
          at(10),
        ),
      ).toEqual({
        status: 'gone',
      });
    });

    test('an insert that races an equal fingerprint becomes a merge into it', async () => {
      const first = await curation.insert(plan({ content: 'same', embedding: axis(0) }), T0);
      const second = await curation.insert(plan({ content: 'same', embedding: axis(0), source: source('later') }), at(1));
      expect(second).toEqual({ status: 'merged', id: first.status === 'inserted' ? first.id : '' });
      expect(await count('memories')).toBe(1);
    });

    test('a superseding memory links both; recall with superseded ones shows the link on both; forgetting one removes it', async () => {
      const a = await curation.insert(plan({ content: 'morning', embedding: axis(0) }), T0);
      if (a.status !== 'inserted') throw new Error('setup');
      const b = await curation.insert(plan({ content: 'evening', embedding: lean(0, 1, 0.3), conflictsWith: a.id }), at(1));
      if (b.status !== 'inserted') throw new Error('setup');
      const both = await recall({
        scope: alice,
        embedding: axis(0),
        kinds: [{ kind: 'fact', expiredBefore: null }],
        limit: 5,
        candidates: 5,
        includeSuperseded: true,
        now: at(2),
      });
      expect(both.map((m) => [m.content, m.conflicts])).toEqual([
        ['evening', [a.id]],
        ['morning', [b.id]],
      ]);
      expect(await curation.forgetIds(alice, [a.id], [])).toEqual([a.id]);
      const left = await recall({
        scope: alice,
        embedding: axis(0),
        kinds: [{ kind: 'fact', expiredBefore: null }],
        limit: 5,
        candidates: 5,
        now: at(3),
      });
      expect(left.map((m) => m.conflicts)).toEqual([[]]);
    });

    test('recall: nearest first, one round trip, marks what it returns useful, skips expired but never pinned', async () => {
      await curation.insert(plan({ content: 'fresh', embedding: lean(0, 1, 0.5), kind: 'session' }), at(100));
      await curation.insert(plan({ content: 'stale', embedding: axis(0), kind: 'session' }), at(0));
      await curation.insert(plan({ content: 'stale pinned', embedding: lean(0, 2, 0.1), kind: 'session', pinned: true }), at(0));
      await curation.insert(plan({ content: 'other kind', embedding: lean(0, 3, 0.2) }), at(0));
      harness.roundTrips.count = 0;
      const kinds = [{ kind: 'session', expiredBefore: at(50) }];
      const found = await recall({ scope: alice, embedding: axis(0), kinds, limit: 2, candidates: 5, now: at(200) });
      expect(harness.roundTrips.count).toBe(1);
      expect(found.map((m) => m.content)).toEqual(['stale pinned', 'fresh']);
      expect(found.every((m) => m.recallCount === 1 && m.lastUsefulAt.getTime() === at(200).getTime())).toBe(true);
      expect(found[0]?.distance).toBeLessThan(found[1]?.distance ?? 0);
      const all = await recall({
        scope: alice,
        embedding: axis(0),
        kinds: [...kinds, { kind: 'fact', expiredBefore: null }],
        limit: 10,
        candidates: 10,
        now: at(201),
      });
      expect(all.map((m) => m.content)).toEqual(['stale pinned', 'other kind', 'fresh']);
    });

    test('recall: each hit brings the next two memories of its origin, user and kind, at a share of its score', async () => {
      const chat = (content: string, seconds: number, over: Partial<InsertPlan> = {}) =>
        curation.insert(plan({ content, embedding: axis(10 + seconds), source: source('chat 1'), ...over }), at(seconds));
      await chat('before', 0);
      await chat('the hit', 1, { embedding: axis(0) });
      await chat('another origin in between', 2, { source: source('chat 2') });
      await chat('another kind', 3, { kind: 'event' });
      await curation.insert(plan({ scope: bob, content: 'bob’s', embedding: axis(20), source: source('chat 1') }), at(3));
      await chat('first after', 4);
      await chat('second after', 5);
      await chat('third after', 6);
      // The relevance floor keeps only the hit among what the arms found: the rest can only follow it.
      const ask = (over: Partial<RecallQuery> = {}) =>
        recall({
          scope: alice,
          embedding: axis(0),
          kinds: [{ kind: 'fact', expiredBefore: null }],
          limit: 10,
          candidates: 50,
          now: at(100),
          farthest: 0.5,
          ...over,
        });
      harness.roundTrips.count = 0;
      const found = await ask();
      expect(harness.roundTrips.count).toBe(1);
      expect(found[0]?.content).toBe('the hit');
      expect(
        found
          .slice(1)
          .map((m) => m.content)
          .sort(),
      ).toEqual(['first after', 'second after']);
      for (const m of found.slice(1)) expect(m.score).toBeCloseTo(FUSION.followingShare * (found[0]?.score ?? 0), 9);
      // What follows is returned, so it was useful: touched like the hit.
      expect(found.every((m) => m.recallCount === 1 && m.lastUsefulAt.getTime() === at(100).getTime())).toBe(true);
      // The limit holds over hits and followers together; with following off, the hit alone.
      const two = (await ask({ limit: 2 })).map((m) => m.content);
      expect(two[0]).toBe('the hit');
      expect(['first after', 'second after']).toContain(two[1]);
      expect(two).toHaveLength(2);
      const alone = await ask({ fusion: { ...FUSION, following: 0 } });
      expect(alone.map((m) => m.content)).toEqual(['the hit']);
    });

    /** A session memory written `seconds` in, in `origin`, away from axis 0 unless told otherwise. */
    const sessionIn =
      (origin: string) =>
      (content: string, seconds: number, over: Partial<InsertPlan> = {}) =>
        curation.insert(
          plan({ content, kind: 'session', embedding: axis(10 + seconds), source: source(origin), ...over }),
          at(seconds),
        );

    test('recall: what follows a hit is checked for expiry, and a memory without an origin brings nothing', async () => {
      const kinds = [{ kind: 'session', expiredBefore: at(50) }];
      const session = sessionIn('chat 1');
      await session('the hit', 60, { embedding: axis(0) });
      await session('stale follower', 61);
      await session('fresh follower', 62);
      await session('second fresh follower', 63);
      await session('third fresh follower', 64);
      await harness.inspect.setLastUseful(['stale follower'], at(10));
      await curation.insert(plan({ content: 'no origin', embedding: axis(1), kind: 'session' }), at(70));
      await curation.insert(plan({ content: 'written later, no origin', embedding: axis(2), kind: 'session' }), at(71));
      const ask = (embedding: number[]) =>
        recall({ scope: alice, embedding, kinds, limit: 10, candidates: 50, now: at(100), farthest: 0.5 });
      // The next two live ones: an expired memory neither comes back nor takes a follower's place.
      const found = (await ask(axis(0))).map((m) => m.content);
      expect(found[0]).toBe('the hit');
      expect(found.slice(1).sort()).toEqual(['fresh follower', 'second fresh follower']);
      expect((await ask(axis(1))).map((m) => m.content)).toEqual(['no origin']);
      // Nothing found, nothing follows.
      expect(await ask(axis(100))).toEqual([]);
    });

    test('recall: what follows a hit is read by place, at most a few places after it; a restatement takes no place', async () => {
      const kinds = [{ kind: 'session', expiredBefore: at(50) }];
      const session = sessionIn('chat 3');
      await session('the hit', 60, { embedding: axis(0) });
      await session('the hit', 61, { embedding: axis(0) });
      await session('another origin', 62, { source: source('chat 4') });
      await session('another kind, same origin', 62, { kind: 'fact' });
      await session('another user, same origin', 62, { scope: bob });
      for (const n of [1, 2, 3]) await session(`gone ${n}`, 62 + n);
      await session('last within reach', 66);
      await session('beyond reach', 67);
      const stored = await harness.inspect.memories();
      const places = stored
        .filter((m) => m.origin === 'chat 3' && m.kind === 'session' && m.userId === alice.userId)
        .sort((x, y) => (x.originSeq ?? 0) - (y.originSeq ?? 0))
        .map((m) => ({ content: m.content, origin_seq: String(m.originSeq) }));
      // Places are counted per user, origin and kind: the others' first memory in 'chat 3' took place 1 of theirs.
      const others = stored
        .filter((m) => /^another .*, same origin$/.test(m.content))
        .sort((x, y) => (x.content < y.content ? -1 : 1))
        .map((m) => ({ content: m.content, origin_seq: String(m.originSeq) }));
      expect(others.map((r) => `${r.origin_seq} ${r.content}`)).toEqual([
        '1 another kind, same origin',
        '1 another user, same origin',
      ]);
      expect(places.map((r) => `${r.origin_seq} ${r.content}`)).toEqual([
        '1 the hit',
        '2 gone 1',
        '3 gone 2',
        '4 gone 3',
        '5 last within reach',
        '6 beyond reach',
      ]);
      await harness.inspect.setLastUseful(['gone 1', 'gone 2', 'gone 3'], at(10));
      const found = await recall({
        scope: alice,
        embedding: axis(0),
        kinds,
        limit: 10,
        candidates: 50,
        now: at(100),
        farthest: 0.5,
      });
      // Places 2 to 5 are looked at (FUSION.followingReach): three expired, so one follower; 6 is never read.
      expect(FUSION.followingReach).toBe(4);
      expect(found.map((m) => m.content)).toEqual(['the hit', 'last within reach']);
    });

    test('the page’s reads change nothing: search ranks as recall, browse is newest first, next to go is eviction order', async () => {
      await curation.insert(plan({ content: 'oldest useful', embedding: axis(0) }), at(0));
      await curation.insert(plan({ content: 'middle', embedding: lean(0, 1, 0.5) }), at(10));
      await curation.insert(plan({ content: 'newest', embedding: lean(0, 2, 0.2) }), at(20));
      await curation.insert(plan({ content: 'pinned one', embedding: axis(3), pinned: true }), at(5));
      await curation.insert(plan({ scope: bob, content: 'bob’s', embedding: axis(0) }), at(0));
      const usefulness = async () =>
        (await harness.inspect.memories()).map(({ id, recallCount, lastUsefulAt }) => ({ id, recallCount, lastUsefulAt }));
      const before = await usefulness();
      const kinds = [{ kind: 'fact', expiredBefore: null }];
      const query = {
        scope: alice,
        embedding: axis(0),
        terms: [],
        fusion: FUSION,
        lexical: LEXICAL,
        kinds,
        limit: 10,
        candidates: 10,
        farthest: NO_FLOOR,
        now: at(100),
      };

      const searched = await page.search(query);
      const first = await page.browse({ scope: alice, kinds, pageSize: 2, cursor: undefined });
      const rest = await page.browse({ scope: alice, kinds, pageSize: 2, cursor: first.nextCursor });
      const next = await page.nextToGo(alice, kinds, 2);
      expect(await usefulness()).toEqual(before);

      expect((await recall(query)).map((m) => m.content)).toEqual(searched.map((m) => m.content));
      expect([...first.memories, ...rest.memories].map((m) => m.content)).toEqual([
        'newest',
        'middle',
        'pinned one',
        'oldest useful',
      ]);
      expect(rest.nextCursor).toBeUndefined();
      expect(next.map((m) => m.content)).toEqual(['oldest useful', 'middle']);
    });

    test('journal lines per day and rule, of the caller only', async () => {
      const day = (d: number) => new Date(T0.getTime() + d * 86_400_000);
      await curation.insert(plan({ content: 'a', embedding: axis(0), ceiling: 1 }), day(0));
      await curation.insert(plan({ content: 'b', embedding: axis(1), ceiling: 1 }), day(0));
      await curation.insert(plan({ content: 'c', embedding: axis(2), ceiling: 1 }), day(1));
      await curation.insert(plan({ scope: bob, content: 'x', embedding: axis(0), ceiling: 1 }), day(1));
      await curation.insert(plan({ scope: bob, content: 'y', embedding: axis(1), ceiling: 1 }), day(1));
      const dayName = (d: number) => day(d).toISOString().slice(0, 10);
      expect(await page.journalByDay(alice, day(-1))).toEqual([
        { day: dayName(0), rule: 'ceiling', lines: 1 },
        { day: dayName(1), rule: 'ceiling', lines: 1 },
      ]);
    });

    test('lexical arm: a rare word finds its memory however far its vector; never another user’s or region’s', async () => {
      const carol: Scope = { region: 'us-east-1', userId: alice.userId };
      await curation.insert(plan({ content: 'The invoice number is ZX-4471.', embedding: axis(5) }), T0);
      await curation.insert(plan({ content: 'The weather was fine.', embedding: axis(0) }), T0);
      await curation.insert(plan({ scope: bob, content: 'Bob also has ZX-4471.', embedding: axis(0) }), T0);
      await curation.insert(plan({ scope: carol, content: 'ZX-4471 in another region.', embedding: axis(0) }), T0);
      harness.roundTrips.count = 0;
      const kinds = [{ kind: 'fact', expiredBefore: null }];
      const terms = analyzer.queryTerms('zx 4471?');
      const [best] = await recall({ scope: alice, embedding: axis(0), terms, kinds, limit: 1, candidates: 50, now: at(1) });
      expect(harness.roundTrips.count).toBe(1);
      expect(best?.content).toBe('The invoice number is ZX-4471.');
      expect(best?.score).toBeGreaterThan(0);
      expect(best?.distance).toBeCloseTo(1, 5);
      for (const ranking of ['hybrid', 'lexical', 'vector'] as const) {
        const all = await recall({
          scope: alice,
          embedding: axis(0),
          terms,
          ranking,
          kinds,
          limit: 50,
          candidates: 50,
          now: at(2),
        });
        expect(all.map((m) => m.content).filter((c) => /Bob|region/.test(c))).toEqual([]);
      }
    });

    test('lexical arm: term rarity comes from the caller’s own partition, not from everyone’s', async () => {
      await curation.insert(plan({ content: 'alpha one', embedding: axis(1) }), T0);
      for (const n of ['two', 'three', 'four']) await curation.insert(plan({ content: `beta ${n}`, embedding: axis(1) }), T0);
      // For Bob, alpha is everywhere: counted over all users, alpha would be the common word.
      for (let i = 0; i < 12; i += 1)
        await curation.insert(plan({ scope: bob, content: `alpha note ${i}`, embedding: axis(1) }), T0);
      const kinds = [{ kind: 'fact', expiredBefore: null }];
      const query = { scope: alice, embedding: axis(0), kinds, candidates: 50, now: at(1), ranking: 'lexical' as const };
      const found = await recall({ ...query, terms: analyzer.queryTerms('alpha beta'), limit: 4 });
      expect(found[0]?.content).toBe('alpha one');
      expect(found.map((m) => m.content).sort()).toEqual(['alpha one', 'beta four', 'beta three', 'beta two']);
      // The lexical arm alone returns only what it found: no term in common, nothing returned.
      expect(await recall({ ...query, terms: analyzer.queryTerms('gamma'), limit: 4 })).toEqual([]);
    });

    test('lexical arm: expired memories are never returned, pinned ones always are', async () => {
      await curation.insert(plan({ content: 'fresh zebra', embedding: axis(1), kind: 'session' }), at(100));
      await curation.insert(plan({ content: 'stale zebra', embedding: axis(2), kind: 'session' }), at(0));
      await curation.insert(plan({ content: 'stale pinned zebra', embedding: axis(3), kind: 'session', pinned: true }), at(0));
      const kinds = [{ kind: 'session', expiredBefore: at(50) }];
      for (const ranking of ['hybrid', 'lexical'] as const) {
        const found = await recall({
          scope: alice,
          embedding: axis(0),
          terms: analyzer.queryTerms('zebra'),
          ranking,
          kinds,
          limit: 10,
          candidates: 50 + 100,
          now: at(200),
        });
        expect(found.map((m) => m.content).sort()).toEqual(['fresh zebra', 'stale pinned zebra']);
      }
    });

    test('lexical arm: in long memories a term’s frequency counts and a short memory beats a long one', async () => {
      // Memories of about 300 terms: k1 and b approach their full values (ranking.ts, lengthScaled),
      // b near 1, so one occurrence in 10 terms beats three in 300, which beat one in 300.
      const filler = (n: number) => Array.from({ length: n }, (_, i) => `a${i}`).join(' ');
      const long = (content: string, id: string) =>
        plan({ id, content, embedding: axis(0), frequencies: [...analyzer.frequencies(content).values()] });
      for (let i = 0; i < 4; i += 1) await curation.insert(long(filler(300), randomUUID()), T0);
      // Ids in the reverse of the expected order: a tie broken by id would fail the test.
      await curation.insert(long(`zebra ${filler(299)}`, '00000000-0000-4000-8000-000000000001'), T0);
      await curation.insert(long(`zebra b1 b2 b3 b4 b5 b6 b7 b8 b9`, '00000000-0000-4000-8000-000000000002'), T0);
      await curation.insert(long(`zebra zebra zebra ${filler(297)}`, '00000000-0000-4000-8000-000000000003'), T0);
      const found = await recall({
        scope: alice,
        embedding: axis(1),
        terms: analyzer.queryTerms('zebra'),
        ranking: 'lexical',
        kinds: [{ kind: 'fact', expiredBefore: null }],
        limit: 10,
        candidates: 50,
        now: at(1),
      });
      expect(found.map((m) => m.id.slice(-1))).toEqual(['2', '3', '1']);
    });

    test('lexical arm: a long memory scores by its best passage; one written without passages as one passage (decision 0115)', async () => {
      const filler = (n: number) => Array.from({ length: n }, (_, i) => `a${i}`).join(' ');
      const long = (content: string, id: string, passages = true) =>
        plan({
          id,
          content,
          embedding: axis(0),
          frequencies: [...analyzer.frequencies(content).values()],
          ...(passages ? { passages: [...analyzer.passages(content).values()] } : {}),
        });
      for (let i = 0; i < 4; i += 1) await curation.insert(long(filler(400), randomUUID()), T0);
      // The same terms, as often, in memories of the same length: only where they lie tells them apart.
      await curation.insert(long(`zebra ${filler(398)} quokka`, '00000000-0000-4000-8000-000000000001'), T0);
      await curation.insert(long(`zebra quokka ${filler(398)}`, '00000000-0000-4000-8000-000000000002'), T0);
      await curation.insert(long(`zebra ${filler(397)} b0 quokka`, '00000000-0000-4000-8000-000000000003', false), T0);
      const found = await recall({
        scope: alice,
        embedding: axis(1),
        terms: analyzer.queryTerms('zebra quokka'),
        ranking: 'lexical',
        kinds: [{ kind: 'fact', expiredBefore: null }],
        limit: 10,
        candidates: 50,
        now: at(1),
      });
      expect(found.map((m) => m.id.slice(-1))).toEqual(['2', '3', '1']);
    });

    test('hybrid: in long memories the vector arm weighs less, by the same length share (decision 0109)', async () => {
      const filler = (n: number) => Array.from({ length: n }, (_, i) => `a${i}`).join(' ');
      const long = (content: string, embedding: number[]) =>
        plan({ content, embedding, frequencies: [...analyzer.frequencies(content).values()] });
      for (let i = 0; i < 4; i += 1) await curation.insert(long(`${filler(299)} f${i}`, axis(2 + i)), T0);
      await curation.insert(long(`zebra ${filler(299)}`, axis(1)), T0);
      await curation.insert(long(`${filler(299)} near`, axis(0)), T0);
      const found = await recall({
        scope: alice,
        embedding: axis(0),
        terms: analyzer.queryTerms('zebra'),
        kinds: [{ kind: 'fact', expiredBefore: null }],
        limit: 10,
        candidates: 50,
        now: at(1),
      });
      // Every memory holds 300 terms: the vector arm's first rank scores its weight times the scale.
      const { vectorScale } = lengthScaled(LEXICAL, 300);
      expect(vectorScale).toBeLessThan(0.2);
      const near = found.find((m) => m.content.endsWith('near'));
      expect(near?.score).toBeCloseTo((FUSION.vectorWeight * vectorScale) / (FUSION.k + 1), 9);
      expect(found[0]?.content.startsWith('zebra')).toBe(true);
    });

    test('hybrid: in long memories what follows a hit scores its share times the same length scale (decision 0120)', async () => {
      const filler = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');
      const chat = (content: string, seconds: number) =>
        curation.insert(
          plan({
            content,
            embedding: axis(10 + seconds),
            source: source('chat 1'),
            frequencies: [...analyzer.frequencies(content).values()],
          }),
          at(seconds),
        );
      await chat(`zebra ${filler(299, 'a')}`, 1);
      await chat(filler(300, 'b'), 2);
      await chat(filler(300, 'c'), 3);
      // Only the lexical arm's hit passes the relevance floor: the two others can only follow it.
      const found = await recall({
        scope: alice,
        embedding: axis(0),
        terms: analyzer.queryTerms('zebra'),
        kinds: [{ kind: 'fact', expiredBefore: null }],
        limit: 10,
        candidates: 50,
        now: at(100),
        farthest: 0.5,
      });
      const { followingScale } = lengthScaled(LEXICAL, 300);
      expect(followingScale).toBeLessThan(0.2);
      expect(found).toHaveLength(3);
      expect(found[0]?.content.startsWith('zebra')).toBe(true);
      for (const m of found.slice(1)) {
        expect(m.score).toBeCloseTo(FUSION.followingShare * followingScale * (found[0]?.score ?? 0), 9);
      }
    });

    test('relevance floor: what only the vector arm found is kept within the farthest distance; a lexical match always', async () => {
      await curation.insert(plan({ content: 'near thing', embedding: lean(0, 1, 0.1) }), T0);
      await curation.insert(plan({ content: 'far thing', embedding: axis(1) }), T0);
      await curation.insert(plan({ content: 'far zebra', embedding: axis(2) }), T0);
      const query = { scope: alice, kinds: [{ kind: 'fact', expiredBefore: null }], limit: 10, candidates: 50, now: at(1) };
      const contents = async (over: Partial<RecallQuery>) =>
        (await recall({ ...query, embedding: axis(0), terms: [], ...over })).map((m) => m.content).sort();
      const zebra = analyzer.queryTerms('zebra?');
      expect(await contents({ terms: zebra })).toEqual(['far thing', 'far zebra', 'near thing']);
      expect(await contents({ terms: zebra, farthest: 0.5 })).toEqual(['far zebra', 'near thing']);
      expect(await contents({ farthest: 0.5 })).toEqual(['near thing']);
      // No term in common and far from everything: nothing at all.
      expect(await contents({ embedding: axis(3), terms: analyzer.queryTerms('quokka'), farthest: 0.5 })).toEqual([]);
    });

    test('a query without terms recalls through the vector arm alone', async () => {
      await curation.insert(plan({ content: 'near', embedding: lean(0, 1, 0.1) }), T0);
      await curation.insert(plan({ content: 'far', embedding: axis(1) }), T0);
      const kinds = [{ kind: 'fact', expiredBefore: null }];
      expect(analyzer.queryTerms('?!… —')).toEqual([]);
      for (const ranking of ['hybrid', 'lexical'] as const) {
        const found = await recall({
          scope: alice,
          embedding: axis(0),
          terms: [],
          ranking,
          kinds,
          limit: 5,
          candidates: 50,
          now: at(1),
        });
        expect(found.map((m) => m.content)).toEqual(['near', 'far']);
      }
    });

    test('forget by id deletes only the caller’s; forget all removes the caller’s journal lines too', async () => {
      const mine = await curation.insert(plan({ content: 'mine', embedding: axis(0), ceiling: 1 }), T0);
      await curation.insert(plan({ content: 'mine 2', embedding: axis(1), ceiling: 1 }), at(1));
      const theirs = await curation.insert(plan({ scope: bob, content: 'theirs', embedding: axis(0), ceiling: 1 }), T0);
      await curation.insert(plan({ scope: bob, content: 'theirs 2', embedding: axis(1), ceiling: 1 }), at(1));
      if (mine.status !== 'inserted' || theirs.status !== 'inserted') throw new Error('setup');
      harness.roundTrips.count = 0;
      expect(await curation.forgetIds(alice, [theirs.id, randomUUID()], [])).toEqual([]);
      expect(harness.roundTrips.count).toBe(1);
      expect(await count('journal')).toBe(2);
      expect(await curation.forgetAll(alice, undefined, [])).toEqual({ memories: 1, journalLines: 1 });
      expect(await count('memories')).toBe(1);
      expect(await count('journal')).toBe(1);
    });

    test('counts per kind leave out expired memories; pinned are counted', async () => {
      await curation.insert(plan({ content: 's1', embedding: axis(0), kind: 'session' }), at(0));
      await curation.insert(plan({ content: 's2', embedding: axis(1), kind: 'session', pinned: true }), at(0));
      await curation.insert(plan({ content: 'f1', embedding: axis(2) }), at(0));
      await curation.insert(plan({ scope: bob, content: 'f2', embedding: axis(2) }), at(0));
      expect(await curation.counts(alice, [{ kind: 'session', expiredBefore: at(10) }])).toEqual({
        perKind: { session: 1, fact: 1 },
        pinned: 1,
        pinnedPerKind: { session: 1, fact: 0 },
      });
      expect(await curation.counts(alice, [])).toEqual({
        perKind: { session: 2, fact: 1 },
        pinned: 1,
        pinnedPerKind: { session: 1, fact: 0 },
      });
    });

    test('journal pages newest first with an opaque cursor', async () => {
      const first = await curation.insert(plan({ content: 'x', embedding: axis(0) }), T0);
      if (first.status !== 'inserted') throw new Error('setup');
      for (let i = 1; i <= 5; i += 1) {
        await curation.merge(
          {
            scope: alice,
            targetId: first.id,
            kind: 'fact',
            pin: 'keep',
            source: source(),
            pinLimit: 10,
            sourcesKept: 3,
            expiredBefore: null,
          },
          at(i),
        );
      }
      const page1 = await curation.journal(alice, 2, undefined);
      const page2 = await curation.journal(alice, 2, page1.nextCursor);
      const page3 = await curation.journal(alice, 2, page2.nextCursor);
      const times = [...page1.lines, ...page2.lines, ...page3.lines].map((l) => l.at.getTime());
      expect(times).toEqual([5, 4, 3, 2, 1].map((s) => at(s).getTime()));
      expect(page3.nextCursor).toBeUndefined();
      expect((await curation.journal(bob, 10, undefined)).lines).toEqual([]);
    });

    test('the sweeper deletes expired memories of its region in bounded batches, journaling each once', async () => {
      // A kind with a TTL: its memories go into the expiry index the sweeper walks.
      const session = { kind: 'session', expiredBefore: at(-1_000) };
      for (let i = 0; i < 5; i += 1) await curation.insert(plan({ content: `s${i}`, embedding: axis(i), ...session }), at(i));
      await curation.insert(plan({ content: 'pinned', embedding: axis(9), ...session, pinned: true }), at(0));
      await curation.insert(
        plan({ scope: { region: 'us-east-1', userId: bob.userId }, content: 'far', embedding: axis(8), ...session }),
        at(0),
      );
      expect(await maintenance.sweepExpired('eu-central-1', 'session', at(3), 2, at(100))).toBe(2);
      expect(await maintenance.sweepExpired('eu-central-1', 'session', at(3), 2, at(100))).toBe(1);
      expect(await maintenance.sweepExpired('eu-central-1', 'session', at(3), 2, at(100))).toBe(0);
      expect(await count('memories')).toBe(4);
      const rules = (await harness.inspect.journal()).map((l) => l.rule);
      expect(rules).toEqual(['expiry', 'expiry', 'expiry']);
      expect(await maintenance.trimJournal('eu-central-1', at(101), 2)).toBe(2);
      expect(await maintenance.trimJournal('eu-central-1', at(101), 2)).toBe(1);
      expect(await count('journal')).toBe(0);
    });

    test('a kind that gains a TTL: its memories are marked a bounded step at a time, each step going on from the last', async () => {
      // Facts written while the kind had no TTL are not in the expiry index.
      for (let i = 0; i < 7; i += 1) await curation.insert(plan({ content: `f${i}`, embedding: axis(i) }), at(i));
      await curation.insert(plan({ content: 'kept', embedding: axis(9), pinned: true }), at(0));
      await curation.insert(plan({ content: 'other kind', embedding: axis(8), kind: 'event' }), at(0));
      const far = { region: 'us-east-1', userId: bob.userId };
      await curation.insert(plan({ scope: far, content: 'far', embedding: axis(7) }), at(0));
      expect(await maintenance.sweepExpired('eu-central-1', 'fact', at(50), 100, at(100))).toBe(0);

      let steps = 1;
      while ((await maintenance.markExpiring('eu-central-1', 'fact', 2)) === 2 && steps < 20) steps += 1;
      // Ten rows in the region, two a step: a walk that started over at each step would never end.
      expect(steps).toBeLessThan(20);
      expect(await maintenance.sweepExpired('eu-central-1', 'fact', at(50), 100, at(100))).toBe(7);
      expect(await count('memories')).toBe(3);
      expect(await maintenance.sweepExpired('us-east-1', 'fact', at(50), 100, at(100))).toBe(0);
      // A later walk of the same kind starts afresh: what is written unmarked meanwhile is found.
      await curation.insert(plan({ content: 'late', embedding: axis(3) }), at(10));
      while ((await maintenance.markExpiring('eu-central-1', 'fact', 2)) === 2 && steps < 40) steps += 1;
      expect(await maintenance.sweepExpired('eu-central-1', 'fact', at(50), 100, at(100))).toBe(1);
    });

    describe('expired memories count for nothing and leave only as expiry', () => {
      // A session kind with a 10 s TTL: at(t) expires everything last useful before at(t - 10).
      const session = (content: string, over: Partial<InsertPlan> = {}) =>
        plan({ content, embedding: axis(content.length % 8), kind: 'session', ceiling: 3, ...over });
      const lines = () => harness.inspect.journal();

      test('an insert removes the expired rows of its partition, journaled as expiry at the instant each expired', async () => {
        for (const [i, c] of ['a', 'bb', 'ccc'].entries()) await curation.insert(session(c), at(i));
        harness.roundTrips.count = 0;
        const fresh = await curation.insert(session('dddd', { expiredBefore: at(1.5) }), at(11.5));
        expect(harness.roundTrips.count).toBe(1);
        expect(fresh).toMatchObject({ status: 'inserted', evicted: 0 });
        expect(await count('memories')).toBe(2);
        const written = await lines();
        expect(written.map((l) => l.rule)).toEqual(['expiry', 'expiry']);
        // Last useful at 0 s and 1 s with a 10 s TTL: expired at 10 s and 11 s, aged 10 s each.
        expect(written.map((l) => l.at.getTime())).toEqual([at(10).getTime(), at(11).getTime()]);
        expect(written.map((l) => l.ageSeconds)).toEqual([10, 10]);
      });

      test('the ceiling counts live rows only: a full partition of expired rows evicts nothing', async () => {
        for (const [i, c] of ['a', 'bb', 'ccc'].entries()) await curation.insert(session(c), at(i));
        const fresh = await curation.insert(session('dddd', { expiredBefore: at(5) }), at(15));
        expect(fresh).toMatchObject({ status: 'inserted', evicted: 0 });
        expect((await lines()).map((l) => l.rule)).toEqual(['expiry', 'expiry', 'expiry']);
      });

      test('an exact restatement of an expired memory is not absorbed: nothing is written until it is expired', async () => {
        await curation.insert(session('same'), at(0));
        const again = session('same', { expiredBefore: at(5) });
        expect(await curation.insert(again, at(15))).toEqual({ status: 'expired_twin' });
        expect(await count('journal')).toBe(0);
        expect(
          await curation.neighbours({
            scope: alice,
            kind: 'session',
            embedding: axis(4),
            fingerprint: 'same',
            ...{ expiredBefore: at(5), candidates: 4 },
          }),
        ).toEqual({
          nearest: undefined,
          candidates: [],
          exact: { id: expect.any(String), live: false },
        });
        expect(await curation.expirePartition(alice, 'session', at(5), at(15))).toBe(1);
        expect(await curation.insert(again, at(15))).toMatchObject({ status: 'inserted', id: again.id });
        expect((await lines()).map((l) => [l.rule, l.at.getTime()])).toEqual([['expiry', at(10).getTime()]]);
      });

      test('a merge that unpins: the memory can expire again; one that keeps the pin leaves it pinned', async () => {
        const held = await curation.insert(session('held', { pinned: true }), at(0));
        if (held.status !== 'inserted') throw new Error('setup');
        const merge = { scope: alice, targetId: held.id, kind: 'session', source: source(), pinLimit: 1, sourcesKept: 3 };
        const flags = async () => (await harness.inspect.memories()).map(({ pinned, expires }) => ({ pinned, expires }));
        expect(await curation.merge({ ...merge, pin: 'keep', expiredBefore: at(-9) }, at(1))).toEqual({
          status: 'merged',
          id: held.id,
        });
        expect(await flags()).toEqual([{ pinned: true, expires: false }]);
        expect(await curation.merge({ ...merge, pin: 'unpin', expiredBefore: at(-8) }, at(2))).toEqual({
          status: 'merged',
          id: held.id,
        });
        expect(await flags()).toEqual([{ pinned: false, expires: true }]);
        // Last useful at 2 s with a 10 s TTL: gone by 13 s.
        expect(await curation.merge({ ...merge, pin: 'keep', expiredBefore: at(3) }, at(13))).toEqual({ status: 'gone' });
      });

      test('a merge into an expired memory finds it gone', async () => {
        const old = await curation.insert(session('old'), at(0));
        if (old.status !== 'inserted') throw new Error('setup');
        const merge = { scope: alice, targetId: old.id, kind: 'session', pin: 'keep' as const, source: source(), pinLimit: 10 };
        expect(await curation.merge({ ...merge, sourcesKept: 3, expiredBefore: at(5) }, at(15))).toEqual({ status: 'gone' });
        expect(await count('journal')).toBe(0);
      });

      test('forgetting an expired memory by id deletes nothing; forgetting all counts only live ones', async () => {
        const old = await curation.insert(session('old'), at(0));
        await curation.insert(session('new'), at(10));
        if (old.status !== 'inserted') throw new Error('setup');
        const cutoff = [{ kind: 'session', expiredBefore: at(5) }];
        expect(await curation.forgetIds(alice, [old.id], cutoff)).toEqual([]);
        expect(await curation.forgetAll(alice, 'session', cutoff)).toEqual({ memories: 1, journalLines: 0 });
        expect(await count('memories')).toBe(0);
      });
    });

    test('two sweepers at once delete and journal each expired memory once', async () => {
      for (let i = 0; i < 6; i += 1)
        await curation.insert(plan({ content: `s${i}`, embedding: axis(i), kind: 'session', expiredBefore: at(-1_000) }), at(0));
      const runs = await Promise.all([1, 2].map(() => maintenance.sweepExpired('eu-central-1', 'session', at(5), 10, at(10))));
      expect(runs.reduce((a, b) => a + b, 0)).toBe(6);
      expect(await count('journal')).toBe(6);
    });

    describe('the lexical arm’s depth: a term’s best postings, at most postingsPerTerm per partition (decision 0078)', () => {
      /** Memories of one user's `fact` partition, each with its own text; returns their ids by text. */
      const loadTexts = async (userId: string, texts: readonly string[]): Promise<Map<string, string>> => {
        const ids = new Map<string, string>();
        const memories = texts.map((content, i) => {
          const id = randomUUID();
          ids.set(content, id);
          return { id, content, fingerprint: `${i}`, embedding: axis(1 + (i % 200)), frequencies: analyzer.frequencies(content) };
        });
        await harness.stores.transfer.load({
          scope: { region: 'local', userId },
          kind: 'fact',
          expires: false,
          at: new Date(),
          agent: 'a',
          client: 't/1',
          memories,
        });
        return ids;
      };

      /** What the lexical arm alone returns (the vector arm runs with weight 0 and counts for nothing). */
      const lexicalOnly = (userId: string, query: string, postingsPerTerm: number, kinds = ['fact']) =>
        page.search({
          scope: { region: 'local', userId },
          embedding: axis(0),
          terms: analyzer.queryTerms(query),
          fusion: { ...FUSION, vectorWeight: 0 },
          lexical: { ...LEXICAL, postingsPerTerm },
          farthest: NO_FLOOR,
          kinds: kinds.map((kind) => ({ kind, expiredBefore: null })),
          limit: 10,
          candidates: 50,
          now: new Date(),
        });

      test('a term in more memories than the depth: the ones with most occurrences, then the shortest, are read', async () => {
        const userId = randomUUID();
        const texts = [
          'quagga once',
          'quagga quagga twice here',
          'quagga quagga twice',
          'quagga quagga quagga thrice in a rather long memory about stripes and plains',
          'quagga once more in a long memory about plains',
          'quagga and also',
        ];
        const ids = await loadTexts(userId, texts);
        const id = (text: string) => ids.get(text);
        const shallow = await lexicalOnly(userId, 'quagga', 3);

        // Three occurrences, then two in the shorter memory, then two in the longer one.
        expect(new Set(shallow.map((m) => m.id))).toEqual(
          new Set([
            id('quagga quagga quagga thrice in a rather long memory about stripes and plains'),
            id('quagga quagga twice'),
            id('quagga quagga twice here'),
          ]),
        );
        // Deep enough for every posting: all six.
        expect(await lexicalOnly(userId, 'quagga', 100)).toHaveLength(6);
      });

      test('the depth holds per partition: each kind searched gets its own best postings', async () => {
        const userId = randomUUID();
        await loadTexts(userId, ['okapi okapi two', 'okapi one', 'okapi one again']);
        const scope = { region: 'local', userId };
        await harness.stores.transfer.load({
          scope,
          kind: 'event',
          expires: false,
          at: new Date(),
          agent: 'a',
          client: 't/1',
          memories: ['okapi okapi seen', 'okapi heard'].map((content, i) => ({
            id: randomUUID(),
            content,
            fingerprint: `e${i}`,
            embedding: axis(50 + i),
            frequencies: analyzer.frequencies(content),
          })),
        });

        const found = await lexicalOnly(userId, 'okapi', 1, ['fact', 'event']);

        expect(found.map((m) => m.content).sort()).toEqual(['okapi okapi seen', 'okapi okapi two']);
      });
    });

    describe('the memory page’s calls', () => pageStoreTests(() => ({ harness, alice, bob })));

    describe('supersession (decision 0107)', () => supersessionStoreTests(() => ({ harness, alice })));

    if (kind === 'sql') describe('the vector arm’s cells', () => cellsStoreTests(() => ({ harness, alice })));
    if (kind === 'sql') describe('the passages walk (decision 0119)', () => passagesStoreTests(() => ({ harness, alice })));
    else
      console.log(`store conformance ${name}: no vector cells to test (exact over a partition, as CockroachDB's index reads it)`);

    describe('OAuth sign-in', () => {
      const hash = (c: string) => c.repeat(64).slice(0, 64);
      const pair = (a: string, r: string, expires = at(3_600)) => ({
        access: { sha256: hash(a), expiresAt: expires },
        refresh: { sha256: hash(r), expiresAt: at(86_400) },
      });
      let oauth: OAuthStore;
      /** The key a person types on the consent page (its id, and the key as typed): grants are made with it. */
      let typed: string;
      const typedKey = `nb_${'k'.repeat(43)}`;
      const client = {
        clientId: 'client-1',
        clientName: 'Client One',
        redirectUris: ['https://app.example/cb'],
        createdAt: T0,
        expiresAt: at(86_400),
      };
      const code = (codeSha256 = hash('c')) => ({
        region: alice.region,
        codeSha256,
        clientId: client.clientId,
        userId: alice.userId,
        agent: 'Client One',
        redirectUri: 'https://app.example/cb',
        codeChallenge: 'x'.repeat(43),
        resource: 'https://naaba.example/mcp',
        expiresAt: at(60),
        grantedBy: typed,
      });
      const grant = (keyId = randomUUID()) => ({
        keyId,
        name: 'Client One',
        userId: alice.userId,
        region: alice.region,
        createdAt: T0,
        revokedAt: null,
        clientId: client.clientId,
        grantedBy: typed,
      });
      /** A consent, a code and its grant: the grant's key id. */
      const granted = async (tokens = pair('a', 'r'), codeSha256 = hash('c')): Promise<string> => {
        const keyId = randomUUID();
        expect(await oauth.saveCode(code(codeSha256), `form-${codeSha256}`, typedKey)).toBe(true);
        expect(await oauth.createGrant(grant(keyId), codeSha256, tokens)).toMatchObject({ created: true });
        return keyId;
      };
      const grace = (seconds: number) => at(seconds - 30);

      beforeEach(async () => {
        oauth = harness.oauth(alice.region);
        await oauth.registerClient(client);
        typed = randomUUID();
        await keys.insert({
          keyId: typed,
          tokenSha256: hashToken(typedKey),
          name: 'owner',
          userId: alice.userId,
          region: alice.region,
          createdAt: T0,
          revokedAt: null,
          clientId: null,
        });
      });

      test('a client reads back as registered until its unused registration lapses; a grant keeps it', async () => {
        const lapsing = { ...client, clientId: 'client-2' };
        await oauth.registerClient(lapsing);
        expect(await oauth.findClient('client-1', at(10))).toEqual(client);
        expect(await oauth.findClient('nobody', at(10))).toBeUndefined();
        expect(await oauth.findClient('client-2', at(86_401))).toBeUndefined();
        await granted();
        expect(await oauth.findClient('client-1', at(86_401))).toEqual({ ...client, expiresAt: null });
        expect(await oauth.deleteExpired(at(86_402), 10)).toBeGreaterThanOrEqual(1);
        expect(await count('oauth_clients')).toBe(1);
      });

      test('lapsing unused registrations ends those still waiting, never a used or an already lapsed one', async () => {
        await oauth.registerClient({ ...client, clientId: 'client-2' });
        await oauth.registerClient({ ...client, clientId: 'client-3', expiresAt: at(5) });
        await granted();
        expect(await oauth.lapseUnusedClients(['client-1', 'client-2', 'client-3', 'nobody'], at(10))).toBe(1);
        expect(await oauth.findClient('client-2', at(10))).toBeUndefined();
        expect(await oauth.findClient('client-1', at(10))).toEqual({ ...client, expiresAt: null });
        expect(await oauth.lapseUnusedClients([], at(10))).toBe(0);
      });

      test('a code is consumed once; the second use names the grant it made', async () => {
        expect(await oauth.saveCode(code(), 'form-1', typedKey)).toBe(true);
        const first = await oauth.consumeCode(alice.region, hash('c'), at(10));
        expect(first).toEqual({ code: code() });
        const keyId = randomUUID();
        await oauth.createGrant(grant(keyId), hash('c'), pair('a', 'r'));
        expect(await oauth.consumeCode(alice.region, hash('c'), at(11))).toEqual({ reusedBy: keyId });
        expect(await oauth.consumeCode(alice.region, hash('z'), at(11))).toBeUndefined();
        expect(await oauth.consumeCode('us-east-1', hash('c'), at(11))).toBeUndefined();
      });

      test('one consent form makes one code, even when answered twice at once', async () => {
        const saved = await Promise.all([hash('c'), hash('d')].map((c) => oauth.saveCode(code(c), 'one-form', typedKey)));
        expect(saved.sort()).toEqual([false, true]);
        expect(await count('oauth_codes')).toBe(1);
      });

      test('the grant is a key without a token, found by its live access token only', async () => {
        const keyId = await granted();
        expect(await keys.findByAccessToken(hash('a'), at(100))).toMatchObject({
          keyId,
          userId: alice.userId,
          clientId: 'client-1',
          grantedBy: typed,
        });
        expect(await keys.findByAccessToken(hash('a'), at(3_601))).toBeUndefined();
        expect(await keys.findByAccessToken(hash('r'), at(100))).toBeUndefined();
        expect((await keys.list()).find((k) => k.keyId === keyId)).toMatchObject({ clientName: 'Client One', revokedAt: null });
      });

      test('a grant replaces the earlier live grant of the same client and key, not one made with another key', async () => {
        const first = await granted(pair('a', 'r'), hash('c'));
        const second = await granted(pair('b', 's'), hash('d'));
        const list = await keys.list();
        expect(list.find((k) => k.keyId === first)?.revokedAt).not.toBeNull();
        expect(list.find((k) => k.keyId === second)?.revokedAt).toBeNull();
        expect(await keys.findByAccessToken(hash('a'), at(100))).toMatchObject({ keyId: first, revokedAt: expect.any(Date) });
      });

      test('no grant is made with a key revoked since the consent; revoking a key ends the grants made with it', async () => {
        const keyId = await granted();
        expect(await keys.revoke(typed, at(50))).toBe(true);
        expect((await keys.list()).find((k) => k.keyId === keyId)?.revokedAt).toEqual(at(50));
        // A store that proves the key at consent already refuses the code; either way no grant comes of it.
        await oauth.saveCode(code(hash('e')), 'form-e', typedKey);
        expect(await oauth.createGrant(grant(), hash('e'), pair('f', 'g'))).toEqual({ created: false, replaced: 0 });
        expect(await keys.findByAccessToken(hash('f'), at(100))).toBeUndefined();
      });

      test('a refresh token rotates; again within its grace it rotates again; after a replacement was used it is reuse', async () => {
        const keyId = await granted();
        expect(await oauth.rotate(hash('r'), 'other-client', at(100), grace(100), pair('b', 's'))).toEqual({
          outcome: 'refused',
        });
        expect(await oauth.rotate(hash('r'), 'client-1', at(100), grace(100), pair('b', 's'))).toEqual({ outcome: 'rotated' });
        expect(await oauth.rotate(hash('r'), 'client-1', at(101), grace(101), pair('d', 'e'))).toEqual({ outcome: 'rotated' });
        expect(await keys.findByAccessToken(hash('b'), at(102))).toMatchObject({ keyId });
        // The client kept the second answer and uses it: the first answer's refresh token and the parent end.
        expect(await oauth.rotate(hash('e'), 'client-1', at(102), grace(102), pair('h', 'i'))).toEqual({ outcome: 'rotated' });
        expect(await oauth.rotate(hash('s'), 'client-1', at(103), grace(103), pair('j', 'k'))).toEqual({ outcome: 'refused' });
        expect(await oauth.rotate(hash('r'), 'client-1', at(103), grace(103), pair('l', 'm'))).toEqual({
          outcome: 'reused',
          keyId,
        });
        await keys.revoke(keyId, at(104));
        expect(await oauth.rotate(hash('i'), 'client-1', at(105), grace(105), pair('n', 'o'))).toEqual({ outcome: 'refused' });
      });

      test('a replaced refresh token presented after its grace is reuse', async () => {
        const keyId = await granted();
        expect(await oauth.rotate(hash('r'), 'client-1', at(100), grace(100), pair('b', 's'))).toEqual({ outcome: 'rotated' });
        expect(await oauth.rotate(hash('r'), 'client-1', at(131), grace(131), pair('d', 'e'))).toEqual({
          outcome: 'reused',
          keyId,
        });
      });

      test('a token names its grant only to the client holding it', async () => {
        const keyId = await granted();
        expect([await oauth.grantOf(hash('a'), 'client-1'), await oauth.grantOf(hash('r'), 'client-1')]).toEqual([keyId, keyId]);
        expect(await oauth.grantOf(hash('a'), 'other-client')).toBeUndefined();
      });

      test('five rotations of one refresh token at once: every one gets a pair, and the grant lives', async () => {
        const keyId = await granted();
        const outcomes = await Promise.all(
          ['1', '2', '3', '4', '5'].map((n) => oauth.rotate(hash('r'), 'client-1', at(100), grace(100), pair(`a${n}`, `r${n}`))),
        );
        expect(outcomes).toEqual(Array(5).fill({ outcome: 'rotated' }));
        expect((await keys.list()).find((k) => k.keyId === keyId)?.revokedAt).toBeNull();
        expect(await oauth.rotate(hash('r3'), 'client-1', at(101), grace(101), pair('x', 'y'))).toEqual({ outcome: 'rotated' });
        expect(await oauth.rotate(hash('r1'), 'client-1', at(102), grace(102), pair('v', 'w'))).toEqual({ outcome: 'refused' });
      });

      test('requests per address and route count in a window that starts again once it has ended', async () => {
        const countAt = (s: number, address = '203.0.113.7', route = 'token') =>
          oauth.countRequest(route, address, at(s), at(s - 900));
        expect(await countAt(0)).toEqual({ hits: 1, windowStart: at(0) });
        expect(await countAt(10)).toEqual({ hits: 2, windowStart: at(0) });
        expect(await countAt(10, '198.51.100.1')).toEqual({ hits: 1, windowStart: at(10) });
        expect(await countAt(10, '203.0.113.7', 'register')).toEqual({ hits: 1, windowStart: at(10) });
        expect(await countAt(900)).toEqual({ hits: 1, windowStart: at(900) });
        const racing = await Promise.all(Array.from({ length: 8 }, () => countAt(1_000)));
        expect(racing.map((r) => r.hits).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
      });

      test('expired codes, tokens and old request windows are deleted in bounded batches; live ones stay', async () => {
        await granted(pair('a', 'r', at(30)));
        await oauth.countRequest('token', '203.0.113.7', at(0), at(-900));
        expect(await oauth.deleteExpired(at(61), 1)).toBe(3);
        expect(await count('oauth_codes')).toBe(0);
        expect(await count('oauth_tokens')).toBe(1);
        expect(await count('oauth_rate_limits')).toBe(0);
      });
    });
  });
}
