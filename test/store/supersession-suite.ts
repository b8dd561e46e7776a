import type { Scope, Source } from '../../lambda/memory/model.js';
import { LexicalAnalyzer } from '../../lambda/memory/lexical.js';
import { NO_FLOOR } from '../../lambda/memory/policy/floor.js';
import { FUSION, LEXICAL } from '../../lambda/memory/policy/ranking.js';
import { newestFirst } from '../../lambda/memory/policy/recency.js';
import type { InsertPlan, RecallQuery } from '../../lambda/ports/curation-store.js';
import { axis, lean } from '../support/vectors.js';
import type { StoreHarness } from './harness.js';
import { insertPlan } from './insert-plan.js';

/**
 * Supersession on every engine the conformance suite runs on (policy/supersession.ts, decision
 * 0107): the newer memory replaces the one it contradicts, recall leaves the older out unless asked,
 * forgetting the newer makes the older current again, and a ceiling evicts superseded memories first.
 */
export interface SupersessionSuiteContext {
  readonly harness: StoreHarness;
  readonly alice: Scope;
}

const T0 = new Date('2026-03-01T00:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const FACT = [{ kind: 'fact', expiredBefore: null }];
const source: Source = { agent: 'agent-a', client: 'tests/1', origin: null, at: T0 };

export function supersessionStoreTests(context: () => SupersessionSuiteContext): void {
  const insert = async (over: Partial<InsertPlan> & Pick<InsertPlan, 'content' | 'embedding'>, when: Date) => {
    const plan = insertPlan(context().alice, source, over);
    const result = await context().harness.stores.curation.insert(plan, when);
    if (result.status !== 'inserted') throw new Error(`setup: ${result.status}`);
    return plan.id;
  };
  const recall = (now: Date, over: Partial<RecallQuery> = {}) =>
    context().harness.stores.curation.recall({
      scope: context().alice,
      embedding: axis(0),
      terms: [],
      fusion: { ...FUSION, depth: Math.max(5, FUSION.depth), following: 0 },
      lexical: LEXICAL,
      farthest: NO_FLOOR,
      kinds: FACT,
      limit: 5,
      candidates: 5,
      now,
      ...over,
    });
  const seen = (memories: Awaited<ReturnType<typeof recall>>) =>
    memories.map((m) => ({ content: m.content, supersededBy: m.supersededBy, supersedes: m.supersedes }));

  test('the newer memory supersedes the one it contradicts: recall returns it and names the one it replaced', async () => {
    const older = await insert({ content: 'the meeting is on tuesday', embedding: axis(0) }, T0);
    const newer = await insert(
      { content: 'the meeting moved to thursday', embedding: lean(0, 1, 0.3), conflictsWith: older },
      at(1),
    );

    expect(seen(await recall(at(2)))).toEqual([
      { content: 'the meeting moved to thursday', supersededBy: null, supersedes: [older] },
    ]);
    // Asked for superseded memories too: both, the current one first, the older naming its replacement.
    expect(seen(await recall(at(3), { includeSuperseded: true }))).toEqual([
      { content: 'the meeting moved to thursday', supersededBy: null, supersedes: [older] },
      { content: 'the meeting is on tuesday', supersededBy: newer, supersedes: [] },
    ]);
  });

  test('forgetting the newer memory makes the older current again', async () => {
    const older = await insert({ content: 'the code is 1234', embedding: axis(0) }, T0);
    const newer = await insert({ content: 'the code is 5678', embedding: lean(0, 1, 0.2), conflictsWith: older }, at(1));
    expect(await context().harness.stores.curation.forgetIds(context().alice, [newer], [])).toEqual([newer]);

    expect(seen(await recall(at(2)))).toEqual([{ content: 'the code is 1234', supersededBy: null, supersedes: [] }]);
  });

  test('a chain of updates keeps only the latest current; each names the one it replaced', async () => {
    const first = await insert({ content: 'lives in lyon', embedding: axis(0) }, T0);
    const second = await insert({ content: 'lives in paris', embedding: lean(0, 1, 0.2), conflictsWith: first }, at(1));
    const third = await insert({ content: 'lives in nantes', embedding: lean(0, 1, 0.3), conflictsWith: second }, at(2));

    expect(seen(await recall(at(3)))).toEqual([{ content: 'lives in nantes', supersededBy: null, supersedes: [second] }]);
    expect((await recall(at(4), { includeSuperseded: true })).map((m) => m.supersededBy).slice(0, 1)).toEqual([null]);
    expect(new Set((await recall(at(5), { includeSuperseded: true })).map((m) => m.supersededBy))).toEqual(
      new Set([null, third, second]),
    );
  });

  test('a ceiling evicts a superseded memory before any current one, however recently useful', async () => {
    const stale = await insert({ content: 'stale but current', embedding: axis(1), ceiling: 3 }, T0);
    const older = await insert({ content: 'the office is in lyon', embedding: axis(0), ceiling: 3 }, at(10));
    await insert({ content: 'the office moved to paris', embedding: lean(0, 1, 0.2), conflictsWith: older, ceiling: 3 }, at(20));
    await insert({ content: 'another fact', embedding: axis(2), ceiling: 3 }, at(30));

    const left = (await context().harness.inspect.memories()).map((m) => m.id);
    expect(left).not.toContain(older);
    expect(left).toContain(stale);
  });

  test('next to go lists superseded memories first, each with the memory that replaced it', async () => {
    await insert({ content: 'stale but current', embedding: axis(1) }, T0);
    const older = await insert({ content: 'the phone is 0601', embedding: axis(0) }, at(10));
    const newer = await insert({ content: 'the phone is 0799', embedding: lean(0, 1, 0.2), conflictsWith: older }, at(20));

    const next = await context().harness.stores.page.nextToGo(context().alice, FACT, 2);
    expect(next.map((m) => [m.content, m.supersededBy])).toEqual([
      ['the phone is 0601', newer],
      ['stale but current', null],
    ]);
  });

  test('the sweeper deletes a superseded memory once its grace period is over, journaled as superseded and without content', async () => {
    const { curation, maintenance } = context().harness.stores;
    const region = context().alice.region;
    const older = await insert({ content: 'the door code is 4411', embedding: axis(0) }, T0);
    const newer = await insert({ content: 'the door code is 9021', embedding: lean(0, 1, 0.2), conflictsWith: older }, at(100));

    expect(await maintenance.sweepSuperseded(region, 'fact', at(100), 10, at(200))).toEqual({ deleted: 0, settled: 0 });
    expect(await maintenance.sweepSuperseded(region, 'fact', at(101), 10, at(200))).toEqual({ deleted: 1, settled: 0 });

    expect((await context().harness.inspect.memories()).map((m) => m.id)).toEqual([newer]);
    const { lines } = await curation.journal(context().alice, 10, undefined);
    expect(lines).toEqual([{ at: at(200), kind: 'fact', rule: 'superseded', ageSeconds: 200, recallCount: 0 }]);
    expect(seen(await recall(at(300)))).toEqual([{ content: 'the door code is 9021', supersededBy: null, supersedes: [] }]);
  });

  test('the sweeper spares a memory whose replacement was forgotten, and a pinned superseded one', async () => {
    const { curation, maintenance } = context().harness.stores;
    const region = context().alice.region;
    const back = await insert({ content: 'the wifi is blue', embedding: axis(0) }, T0);
    const forgotten = await insert({ content: 'the wifi is red', embedding: lean(0, 1, 0.2), conflictsWith: back }, at(1));
    const kept = await insert({ content: 'lunch is at noon', embedding: axis(1), pinned: true }, at(2));
    await insert({ content: 'lunch is at one', embedding: lean(1, 2, 0.2), conflictsWith: kept }, at(3));
    await curation.forgetIds(context().alice, [forgotten], []);

    const swept = await maintenance.sweepSuperseded(region, 'fact', at(10), 10, at(20));
    expect(swept.deleted).toBe(0);
    expect((await context().harness.inspect.memories()).map((m) => m.id)).toEqual(expect.arrayContaining([back, kept]));
    expect((await curation.journal(context().alice, 10, undefined)).lines).toEqual([]);
    // A second walk finds nothing left to settle: every picked row left it.
    expect(await maintenance.sweepSuperseded(region, 'fact', at(10), 10, at(30))).toEqual({ deleted: 0, settled: 0 });
  });
  test('each ranked memory names the others found within the same-subject distance, from which the newer ranks first (decisions 0113, 0124)', async () => {
    const older = await insert({ content: 'the door code is 4417', embedding: lean(0, 1, 0.3) }, T0);
    // On the other side of the query: more than the same-subject distance from both.
    const gate = await insert({ content: 'the gate is painted green', embedding: lean(0, 1, -1.19) }, at(1));
    const newer = await insert({ content: 'the door code changed to 9023', embedding: lean(0, 1, 1.43) }, at(2));
    const ranked = async (sameSubject?: number) => recall(at(3), sameSubject === undefined ? {} : { sameSubject });
    const query = { text: 'the door code', analyzer: new LexicalAnalyzer() };

    // Alone, the arms rank the older first and the newer last (it lies farthest from the query); none is on another's subject.
    const alone = await ranked();
    expect(alone.map((m) => m.id)).toEqual([older, gate, newer]);
    expect(alone.map((m) => m.sameSubject)).toEqual([[], [], []]);
    // Within the same-subject distance of each other, each names the other; the gate lies near neither.
    const near = await ranked(0.55);
    expect(Object.fromEntries(near.map((m) => [m.id, m.sameSubject]))).toEqual({
      [older]: [newer],
      [gate]: [],
      [newer]: [older],
    });
    // The newer takes the older's place, the older comes right after, the rest keeps its place.
    expect(newestFirst(near, query, FUSION).map((m) => m.id)).toEqual([newer, older, gate]);
    // Only the newer moves up: a newer score under the share `newerReach` of the older's is left where it is.
    expect(newestFirst(near, query, { ...FUSION, newerReach: 0.99 }).map((m) => m.id)).toEqual([older, gate, newer]);
  });

  test('what follows a hit never pushes one of the first direct hits out of the answer (decision 0113)', async () => {
    // Two hits, each with two followers far from the query (found only by following), then a third direct hit.
    const chat = (origin: string) => ({ ...source, origin });
    const hits = [
      await insert({ content: 'hit one', embedding: axis(0), source: chat('a') }, T0),
      await insert({ content: 'hit two', embedding: lean(0, 1, 0.1), source: chat('b') }, T0),
    ];
    for (const [i, origin] of ['a', 'a', 'b', 'b'].entries())
      await insert({ content: `follower ${i}`, embedding: axis(10 + i), source: chat(origin) }, at(1 + i));
    const third = await insert({ content: 'third direct hit', embedding: lean(0, 2, 0.3) }, at(10));
    // Followers at 0.95 of a hit's score outrank the third direct hit; five places, the floor keeps the followers out of the arms.
    const ask = (followerPlaces: number) =>
      recall(at(20), { farthest: 0.5, fusion: { ...FUSION, followingShare: 0.95, followerPlaces } }).then((found) =>
        found.map((m) => m.id),
      );

    const bounded = await ask(FUSION.followerPlaces);
    expect(bounded).toEqual(expect.arrayContaining([...hits, third]));
    expect(bounded).toHaveLength(5);
    // Unbounded, the four followers take the three places after the hits: the third direct hit is pushed out.
    expect(await ask(1)).not.toContain(third);
  });
}
