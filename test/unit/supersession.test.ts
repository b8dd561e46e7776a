import { JUDGED_CANDIDATES } from '../../lambda/memory/policy/supersession.js';
import { freshDatabase } from '../support/database.js';
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

/**
 * Issue 47 (decision 0124): among many look-alikes the judge is still shown the memory an update
 * replaces. Ten numbered facts of one pattern, then their ten updates, with a judge that says
 * `contradicts` only for each own pair: the other updates lie nearer in meaning, and the fact to
 * retire is found by its number, the update's rarest stored word.
 */
const DESKS = Array.from({ length: 10 }, (_, i) => i + 1);
const deskFact = (n: number) => `Desk ${n} on the third floor is assigned to one person.`;
const deskUpdate = (n: number) => `Desk ${n} on the third floor is now assigned to another person.`;

test.each(['memory', 'pglite'] as const)(
  'on %s, ten numbered look-alike updates each supersede their own fact and nothing else, at most 3 calls each',
  async (store) => {
    const judge = new ScriptedJudge((existing, incoming) =>
      DESKS.some((n) => existing === deskFact(n) && incoming === deskUpdate(n)) ? 'contradicts' : 'different',
    );
    const db = store === 'pglite' ? await freshDatabase(256) : undefined;
    try {
      const { service } = serviceOver(db ?? 'memory', { judge });
      const me = principal();
      const facts = new Map<number, string>();
      for (const n of DESKS) facts.set(n, (await service.remember(me, CLIENT, { content: deskFact(n), kind: 'fact' })).id);

      const calls: number[] = [];
      const superseded: (string | undefined)[] = [];
      for (const n of DESKS) {
        const before = judge.calls.length;
        const update = await service.remember(me, CLIENT, { content: deskUpdate(n), kind: 'fact' });
        calls.push(judge.calls.length - before);
        superseded.push(update.supersedes);
      }

      expect(Math.max(...calls)).toBeLessThanOrEqual(JUDGED_CANDIDATES);
      const own = DESKS.filter((n, i) => superseded[i] === facts.get(n)).length;
      expect(own).toBeGreaterThanOrEqual(9);
      // Nothing else: every retired memory is a fact whose own update replaced it.
      const all = await service.recall(me, { query: 'desk third floor', kinds: ['fact'], limit: 20, includeSuperseded: true });
      const retired = all.filter((m) => m.supersededBy !== null).map((m) => m.content);
      expect(retired.every((content) => DESKS.some((n) => content === deskFact(n)))).toBe(true);
      expect(retired).toHaveLength(own);
    } finally {
      await db?.close();
    }
  },
  120_000,
);

test.each(['memory', 'pglite'] as const)(
  'on %s, saying a replaced memory again makes it current: it replaces its replacement, and the reply says so',
  async (store) => {
    const nine = 'The stand-up is at 9.';
    const ten = 'The stand-up is now at 10.';
    const judge = new ScriptedJudge((existing, incoming) =>
      [existing, incoming].every((t) => t === nine || t === ten) && existing !== incoming ? 'contradicts' : 'different',
    );
    const db = store === 'pglite' ? await freshDatabase(256) : undefined;
    try {
      const { service } = serviceOver(db ?? 'memory', { judge });
      const me = principal();
      const first = await service.remember(me, CLIENT, { content: nine, kind: 'fact' });
      const update = await service.remember(me, CLIENT, { content: ten, kind: 'fact' });
      expect(update).toMatchObject({ outcome: 'superseded', supersedes: first.id });

      const back = await service.remember(me, CLIENT, { content: 'the stand-up is at 9', kind: 'fact' });

      expect(back).toMatchObject({ outcome: 'merged', mergedInto: first.id, supersedes: update.id, judge: 'exact' });
      const answer = await service.recall(me, { query: 'When is the stand-up?', kinds: ['fact'] });
      expect(answer.map((m) => [m.id, m.supersededBy])).toEqual([[first.id, null]]);
      // The history, current first: the restated memory, then the one it replaces again.
      const history = await service.recall(me, { query: 'When is the stand-up?', kinds: ['fact'], includeSuperseded: true });
      expect(history.map((m) => [m.id, m.supersededBy])).toEqual([
        [first.id, null],
        [update.id, first.id],
      ]);
      // Forgetting the restated memory makes the other current again: nothing is lost.
      await service.forget(me, { ids: [first.id] });
      expect((await service.recall(me, { query: 'When is the stand-up?', kinds: ['fact'] })).map((m) => m.id)).toEqual([
        update.id,
      ]);
    } finally {
      await db?.close();
    }
  },
  120_000,
);
