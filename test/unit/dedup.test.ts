import { FailingJudge, ScriptedJudge } from '../support/judges.js';
import { CLIENT, principal, serviceOver } from '../support/memory.js';

test('same: the existing memory absorbs the restatement, and the reply names it', async () => {
  const judge = new ScriptedJudge(() => 'same');
  const { service, clock, inspect } = serviceOver('memory', { judge });
  const me = principal();
  const first = await service.remember(me, CLIENT, {
    content: 'Amina prefers tea to coffee.',
    kind: 'preference',
    origin: 'chat 1',
  });
  clock.advance(3600);
  const second = await service.remember(me, CLIENT, {
    content: 'Amina likes tea better than coffee.',
    kind: 'preference',
    origin: 'chat 2',
    pinned: true,
  });
  expect(second).toMatchObject({ outcome: 'merged', mergedInto: first.id, judge: 'same' });
  expect(judge.calls).toEqual([['Amina prefers tea to coffee.', 'Amina likes tea better than coffee.']]);
  const [m] = await service.recall(me, { query: 'tea or coffee', kinds: ['preference'] });
  expect(m).toMatchObject({ id: first.id, restatements: 2, pinned: true, content: 'Amina prefers tea to coffee.' });
  expect(m?.restatedBy.map((s) => s.origin)).toEqual(['chat 2']);
  expect(m?.lastUsefulAt.getTime()).toBe(clock.now().getTime());
  expect(await inspect.count()).toBe(1);
});

test('contradicts: the newer supersedes the older; recall returns the newer, and both when asked, linked both ways', async () => {
  const judge = new ScriptedJudge(() => 'contradicts');
  const { service } = serviceOver('memory', { judge });
  const me = principal();
  const morning = await service.remember(me, CLIENT, { content: 'Call him in the morning.', kind: 'instruction' });
  const evening = await service.remember(me, CLIENT, { content: 'Call him at the end of the day.', kind: 'instruction' });
  expect(evening).toMatchObject({ outcome: 'superseded', supersedes: morning.id, judge: 'contradicts' });
  const current = await service.recall(me, { query: 'when to call him', kinds: ['instruction'] });
  expect(current.map((m) => [m.id, m.supersedes])).toEqual([[evening.id, [morning.id]]]);
  const all = await service.recall(me, { query: 'when to call him', kinds: ['instruction'], includeSuperseded: true });
  expect(all.map((m) => [m.id, m.conflicts, m.supersededBy])).toEqual([
    [evening.id, [morning.id], null],
    [morning.id, [evening.id], evening.id],
  ]);
});

test('the seed’s distance trap: a judged conflict stays two memories; an accent-free restatement merges with no judge call', async () => {
  const judge = new ScriptedJudge((a, b) => (a.includes('morning') || b.includes('morning') ? 'contradicts' : 'same'));
  const { service } = serviceOver('memory', { judge });
  const me = principal();
  await service.remember(me, CLIENT, { content: 'Call him in the morning.', kind: 'fact' });
  const conflict = await service.remember(me, CLIENT, { content: 'Call him at the end of the day.', kind: 'fact' });
  expect(conflict.outcome).toBe('superseded');
  expect(judge.calls).toHaveLength(1);

  const other = principal();
  const seat = await service.remember(other, CLIENT, { content: 'Le siège est à Ouagadougou.', kind: 'fact' });
  const plain = await service.remember(other, CLIENT, { content: 'Le siege est a Ouagadougou', kind: 'fact' });
  expect(plain).toMatchObject({ outcome: 'merged', mergedInto: seat.id, judge: 'exact' });
  expect(judge.calls).toHaveLength(1);
});

test('different: stored as a new memory', async () => {
  const { service, inspect } = serviceOver('memory', { judge: new ScriptedJudge(() => 'different') });
  const me = principal();
  await service.remember(me, CLIENT, { content: 'The office is on the third floor.', kind: 'fact' });
  const second = await service.remember(me, CLIENT, { content: 'The office is on the fourth floor of the annex.', kind: 'fact' });
  expect(second).toMatchObject({ outcome: 'stored', judge: 'different' });
  expect(await inspect.count()).toBe(2);
});

describe('judge unavailable: nothing is merged', () => {
  const paraphrases = Array.from({ length: 20 }, (_, i) => `The deadline for the report is Friday${' really'.repeat(i)}.`);

  test.each([
    ['throws', new FailingJudge()],
    ['answers unavailable', new ScriptedJudge(() => 'unavailable')],
  ])('when the judge %s, 20 restatements are all stored', async (_label, judge) => {
    const { service, inspect } = serviceOver('memory', { judge });
    const me = principal();
    const outcomes = [];
    for (const content of paraphrases) outcomes.push(await service.remember(me, CLIENT, { content, kind: 'fact' }));
    expect(outcomes.map((o) => o.outcome)).toEqual(Array(20).fill('stored'));
    expect(outcomes.slice(1).every((o) => o.judge === 'unavailable')).toBe(true);
    expect(await inspect.count()).toBe(20);
    const state = await service.curationState(me, {});
    expect(state.judge).toMatchObject({ provider: judge.name, lastCallOk: false });
    expect(state.journal.lines).toEqual([]);
  });

  test('the same 20 with a working judge merge into one (so the case above can fail)', async () => {
    const { service, inspect } = serviceOver('memory', { judge: new ScriptedJudge(() => 'same') });
    const me = principal();
    for (const content of paraphrases) await service.remember(me, CLIENT, { content, kind: 'fact' });
    expect(await inspect.count()).toBe(1);
    expect((await service.curationState(me, {})).judge.lastCallOk).toBe(true);
  });
});

test('the judge is asked only within the same user and kind', async () => {
  const judge = new ScriptedJudge(() => 'same');
  const { service } = serviceOver('memory', { judge });
  await service.remember(principal(), CLIENT, { content: 'Shared sentence.', kind: 'fact' });
  const me = principal();
  await service.remember(me, CLIENT, { content: 'Shared sentence.', kind: 'event' });
  expect(await service.remember(me, CLIENT, { content: 'Shared sentence.', kind: 'fact' })).toMatchObject({ outcome: 'stored' });
  expect(judge.calls).toEqual([]);
});
