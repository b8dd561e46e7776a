import { JUDGED_CANDIDATES } from '../../lambda/memory/policy/supersession.js';
import { FailingJudge, ScriptedJudge } from '../support/judges.js';
import { CLIENT, principal, serviceOver } from '../support/memory.js';

/**
 * The judge's side of supersession (policy/supersession.ts): it is asked about the few nearest
 * current memories of the kind, at a bounded number of calls, and only the memory it names is
 * retired; an unavailable judge retires nothing.
 */

const FACTS = [
  'Dana works at the harbour office on weekdays.',
  'Dana has a sister called Ines.',
  'Dana drinks her coffee black.',
  'Dana owns a grey bicycle.',
  'Dana plays the cello on Sundays.',
];
const OLD_PHONE = 'Dana’s phone number is 0601 22 33 44.';
const NEW_PHONE = 'Dana’s phone number is now 0799 88 77 66.';

function seeded(judge: ScriptedJudge | FailingJudge) {
  const world = serviceOver('memory', { judge });
  const me = principal();
  return { ...world, me };
}

test('the judge is asked past the nearest memory, at most a bounded number of times, and only the one it names is retired', async () => {
  const judge = new ScriptedJudge((existing, incoming) =>
    existing === OLD_PHONE && incoming === NEW_PHONE ? 'contradicts' : 'different',
  );
  const { service, me } = seeded(judge);
  const old = await service.remember(me, CLIENT, { content: OLD_PHONE, kind: 'fact' });
  for (const content of FACTS) await service.remember(me, CLIENT, { content, kind: 'fact' });
  judge.calls.length = 0;

  const update = await service.remember(me, CLIENT, { content: NEW_PHONE, kind: 'fact' });

  expect(judge.calls.length).toBeGreaterThanOrEqual(1);
  expect(judge.calls.length).toBeLessThanOrEqual(JUDGED_CANDIDATES);
  expect(update).toMatchObject({ outcome: 'superseded', supersedes: old.id });
  const all = await service.recall(me, { query: 'Dana', kinds: ['fact'], limit: 20, includeSuperseded: true });
  const retired = all.filter((m) => m.supersededBy !== null).map((m) => m.id);
  expect(retired).toEqual([old.id]);
});

test('a judge that never contradicts retires nothing, however many calls it gets', async () => {
  const judge = new ScriptedJudge(() => 'different');
  const { service, me } = seeded(judge);
  for (const content of [OLD_PHONE, ...FACTS]) await service.remember(me, CLIENT, { content, kind: 'fact' });
  judge.calls.length = 0;
  const update = await service.remember(me, CLIENT, { content: NEW_PHONE, kind: 'fact' });
  expect(update.outcome).toBe('stored');
  expect(judge.calls.length).toBeLessThanOrEqual(JUDGED_CANDIDATES);
  const all = await service.recall(me, { query: 'Dana', kinds: ['fact'], limit: 20, includeSuperseded: true });
  expect(all.filter((m) => m.supersededBy !== null)).toEqual([]);
});

test('an unavailable judge supersedes nothing and stops the asking', async () => {
  const judge = new FailingJudge();
  const { service, me } = seeded(judge);
  await service.remember(me, CLIENT, { content: OLD_PHONE, kind: 'fact' });
  const calls = judge.calls;
  const update = await service.remember(me, CLIENT, { content: NEW_PHONE, kind: 'fact' });
  expect(update).toMatchObject({ outcome: 'stored', judge: 'unavailable' });
  expect(judge.calls - calls).toBe(1);
  const current = await service.recall(me, { query: 'Dana phone number', kinds: ['fact'] });
  expect(current.map((m) => m.content).sort()).toEqual([NEW_PHONE, OLD_PHONE].sort());
});
