import { KindFullError, UnknownKindError } from '../../lambda/memory/errors.js';
import { ScriptedJudge } from '../support/judges.js';
import { CLIENT, principal, serviceOver } from '../support/memory.js';

test('an unknown kind is rejected with the list of valid kinds', async () => {
  const { service } = serviceOver('memory');
  await expect(service.remember(principal(), CLIENT, { content: 'x', kind: 'gossip' })).rejects.toThrow(UnknownKindError);
  await expect(service.remember(principal(), CLIENT, { content: 'x', kind: 'gossip' })).rejects.toThrow(
    'valid kinds: fact, preference, instruction, event, session',
  );
});

test('the ceiling holds after every remember, evicting the least recently useful, never by age alone', async () => {
  const rules = { kinds: { note: { ceiling: 3, ttlSeconds: null } } };
  const { service, clock, inspect } = serviceOver('memory', { rules });
  const me = principal();
  await service.remember(me, CLIENT, { content: 'ancient but recalled', kind: 'note' });
  clock.advance(86400 * 300);
  await service.remember(me, CLIENT, { content: 'middle aged', kind: 'note' });
  clock.advance(60);
  await service.remember(me, CLIENT, { content: 'recent never recalled', kind: 'note' });
  clock.advance(60);
  await service.recall(me, { query: 'ancient but recalled', limit: 1 });
  clock.advance(60);
  const fourth = await service.remember(me, CLIENT, { content: 'newest', kind: 'note' });
  expect(fourth.evicted).toBe(1);
  expect(await inspect.contents()).toEqual(['ancient but recalled', 'newest', 'recent never recalled']);
  clock.advance(60);
  await service.remember(me, CLIENT, { content: 'newest again', kind: 'note' });
  expect(await inspect.contents()).toEqual(['ancient but recalled', 'newest', 'newest again']);
  const lines = await inspect.journal();
  expect(lines.map((l) => [l.rule, l.kind, l.ageSeconds, l.recallCount])).toEqual([
    ['ceiling', 'note', 180, 0],
    ['ceiling', 'note', 180, 0],
  ]);
});

test('pins are capped per user: past the cap the memory is kept unpinned, and the answer says so', async () => {
  const { service, inspect } = serviceOver('memory', { rules: { pinLimit: 2 } });
  const me = principal();
  const first = await service.remember(me, CLIENT, { content: 'pin one', kind: 'fact', pinned: true });
  await service.remember(me, CLIENT, { content: 'pin two', kind: 'event', pinned: true });
  const loose = await service.remember(me, CLIENT, { content: 'loose', kind: 'fact' });
  const third = await service.remember(me, CLIENT, { content: 'pin three', kind: 'fact', pinned: true });
  const restated = await service.remember(me, CLIENT, { content: 'loose', kind: 'fact', pinned: true });
  const again = await service.remember(me, CLIENT, { content: 'pin one', kind: 'fact' });
  expect([first, loose, third, restated, again].map((r) => [r.outcome, r.pinned, r.pinLimitReached ?? null])).toEqual([
    ['stored', true, null],
    ['stored', false, null],
    ['stored', false, 2],
    ['merged', false, 2],
    ['merged', true, null],
  ]);
  expect(await inspect.contents()).toEqual(['loose', 'pin one', 'pin three', 'pin two']);
  expect((await service.curationState(me, {})).counts.pinned).toBe(2);
  const other = await service.remember(principal(), CLIENT, { content: 'another user pins freely', kind: 'fact', pinned: true });
  expect([other.pinned, other.pinLimitReached]).toEqual([true, undefined]);
});

test('a kind whose every memory is pinned refuses more instead of growing', async () => {
  const { service, inspect } = serviceOver('memory', { rules: { kinds: { note: { ceiling: 2, ttlSeconds: null } } } });
  const me = principal();
  await service.remember(me, CLIENT, { content: 'a', kind: 'note', pinned: true });
  await service.remember(me, CLIENT, { content: 'b', kind: 'note', pinned: true });
  await expect(service.remember(me, CLIENT, { content: 'c', kind: 'note' })).rejects.toThrow(KindFullError);
  expect(await inspect.contents()).toEqual(['a', 'b']);
});

test('expiry: a TTL kind expires that long after last usefulness; expired is never returned; pinned never expires', async () => {
  const { service, clock, sweeper, inspect } = serviceOver('memory', {
    rules: { kinds: { session: { ceiling: 100, ttlSeconds: 3600 } } },
  });
  const me = principal();
  await service.remember(me, CLIENT, { content: 'parking spot B12', kind: 'session' });
  await service.remember(me, CLIENT, { content: 'parking pass pinned', kind: 'session', pinned: true });
  await service.remember(me, CLIENT, { content: 'parking kept alive', kind: 'session' });
  clock.advance(3000);
  await service.recall(me, { query: 'parking kept alive', limit: 1 });
  clock.advance(1000);
  const found = (await service.recall(me, { query: 'parking', limit: 10 })).map((m) => m.content).sort();
  expect(found).toEqual(['parking kept alive', 'parking pass pinned']);
  expect((await service.curationState(me, {})).counts.perKind.session).toBe(2);
  expect(await inspect.contents()).toContain('parking spot B12');
  const report = await sweeper.run('local', { batchSize: 10, maxBatches: 10 });
  expect(report).toMatchObject({ expired: { session: 1 }, incomplete: false });
  expect(await inspect.contents()).toEqual(['parking kept alive', 'parking pass pinned']);
  clock.advance(86400 * 365);
  expect((await service.recall(me, { query: 'parking', limit: 10 })).map((m) => m.content)).toEqual(['parking pass pinned']);
  expect((await inspect.journal()).map((l) => l.rule)).toEqual(['expiry']);
});

test('expired memories cannot starve a recall: the search asks for enough extra rows', async () => {
  const { service, clock } = serviceOver('memory', { rules: { kinds: { session: { ceiling: 30, ttlSeconds: 60 } } } });
  const me = principal();
  for (let i = 0; i < 20; i += 1) await service.remember(me, CLIENT, { content: `river crossing note ${i}`, kind: 'session' });
  clock.advance(120);
  await service.remember(me, CLIENT, { content: 'a distant unrelated fresh note', kind: 'session' });
  const found = await service.recall(me, { query: 'river crossing note', limit: 1 });
  expect(found.map((m) => m.content)).toEqual(['a distant unrelated fresh note']);
});

test('forget leaves no journal line; forgetting everything also removes the caller’s journal lines only', async () => {
  const { service, inspect } = serviceOver('memory', { rules: { kinds: { note: { ceiling: 1, ttlSeconds: null } } } });
  const me = principal();
  const other = principal();
  for (const who of [me, other]) {
    await service.remember(who, CLIENT, { content: 'first', kind: 'note' });
    await service.remember(who, CLIENT, { content: 'second', kind: 'note' });
  }
  const [kept] = await service.recall(me, { query: 'second' });
  await service.forget(me, { ids: [kept?.id ?? ''] });
  expect(await inspect.journal()).toHaveLength(2);
  expect(await service.forget(me, { all: true })).toMatchObject({ count: 0, journalLinesRemoved: 1 });
  expect(await inspect.journal()).toHaveLength(1);
  expect((await service.curationState(other, {})).journal.lines).toHaveLength(1);
});

test('curation_state reports the rules in force, counts per kind and pinned, and the journal newest first with paging', async () => {
  const { service, clock } = serviceOver('memory', {
    rules: { kinds: { note: { ceiling: 1, ttlSeconds: null }, session: { ceiling: 5, ttlSeconds: 60 } } },
  });
  const me = principal();
  for (let i = 0; i < 4; i += 1) {
    await service.remember(me, CLIENT, { content: `note ${i}`, kind: 'note' });
    clock.advance(10);
  }
  await service.remember(me, CLIENT, { content: 'pinned session', kind: 'session', pinned: true });
  const page1 = await service.curationState(me, { pageSize: 2 });
  expect(page1.rules.kinds).toEqual({ note: { ceiling: 1, ttlSeconds: null }, session: { ceiling: 5, ttlSeconds: 60 } });
  expect(page1.counts).toEqual({ perKind: { note: 1, session: 1 }, pinned: 1 });
  expect(page1.journal.lines.map((l) => l.at.getTime())).toEqual(
    [30, 20].map((s) => Date.parse('2026-01-01T00:00:00Z') + s * 1000),
  );
  const page2 = await service.curationState(me, {
    pageSize: 2,
    ...(page1.journal.nextCursor ? { cursor: page1.journal.nextCursor } : {}),
  });
  expect(page2.journal.lines.map((l) => l.rule)).toEqual(['ceiling']);
  expect(page2.journal.nextCursor).toBeUndefined();
});

test('a kind with dedup off is append-only: restatements are stored and the judge is never asked', async () => {
  const judge = new ScriptedJudge(() => 'same');
  const { service, inspect } = serviceOver('memory', {
    judge,
    rules: { kinds: { log: { ceiling: 10, ttlSeconds: null, dedup: false } } },
  });
  const me = principal();
  const outcomes = [];
  for (const content of ['Door opened.', 'door opened', 'Door opened.'])
    outcomes.push((await service.remember(me, CLIENT, { content, kind: 'log' })).outcome);
  expect(outcomes).toEqual(['stored', 'stored', 'stored']);
  expect(judge.calls).toEqual([]);
  expect(await inspect.contents()).toEqual(['Door opened.', 'Door opened.', 'door opened']);
});
