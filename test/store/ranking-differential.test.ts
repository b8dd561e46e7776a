import fc from 'fast-check';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import type { RecalledMemory } from '../../lambda/memory/model.js';
import { freshDatabase, truncateAll } from '../support/database.js';
import { ScriptedJudge } from '../support/judges.js';
import { CLIENT, principal, type ServiceHarness, serviceOver } from '../support/memory.js';

/**
 * Ranking is defined once (policy/ranking.ts, policy/recency.ts) and implemented twice: by the
 * recall statement on PGlite and by the in-memory reference store. This differential test (issue
 * 47) writes the same random memory to both — look-alikes and updates of one pattern, a judge that
 * supersedes some, memories that follow one another in an origin, pins, session memories that
 * expire — then asks both the same random queries and compares the answers: the same memories in
 * the same order with the same scores.
 *
 * Allowed difference, named: two memories whose scores differ by less than `TIE` (sums of the same
 * parts added in another order, in float8 and in doubles) may come in either order.
 */
const TIE = 1e-9;

const NAMES = ['Nora', 'Omar', 'Ines', 'Tomasz', 'Adèle'];
const THINGS = ['locker code', 'desk', 'phone number', 'favourite tea'];
const VALUES = ['3141', '2718', 'green', 'room 204', 'Earl Grey', '0612 44 19 80'];
const OTHER = ['the sky is blue today', 'lunch is at noon', 'the printer jams again', 'Ouagadougou is far'];

type Step =
  | {
      readonly op: 'fact';
      readonly name: number;
      readonly thing: number;
      readonly value: number;
      readonly update: boolean;
      readonly origin: number;
      readonly pinned: boolean;
    }
  | { readonly op: 'other'; readonly text: number; readonly kind: 'fact' | 'session'; readonly origin: number }
  | { readonly op: 'wait'; readonly hours: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant('fact' as const),
    name: fc.nat(NAMES.length - 1),
    thing: fc.nat(THINGS.length - 1),
    value: fc.nat(VALUES.length - 1),
    update: fc.boolean(),
    origin: fc.nat(2),
    pinned: fc.boolean(),
  }),
  fc.record({
    op: fc.constant('other' as const),
    text: fc.nat(OTHER.length - 1),
    kind: fc.constantFrom('fact' as const, 'session' as const),
    origin: fc.nat(2),
  }),
  fc.record({ op: fc.constant('wait' as const), hours: fc.integer({ min: 1, max: 30 }) }),
);

const query: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.nat(NAMES.length - 1), fc.nat(THINGS.length - 1)).map(([n, t]) => `What is ${NAMES[n]}'s ${THINGS[t]}?`),
  fc.constantFrom(...OTHER, 'printer', 'tea', 'zzyzx quorp'),
);

const fact = (s: Extract<Step, { op: 'fact' }>) =>
  s.update
    ? `${NAMES[s.name]}'s ${THINGS[s.thing]} is now ${VALUES[s.value]}.`
    : `${NAMES[s.name]}'s ${THINGS[s.thing]} is ${VALUES[s.value]}.`;

/** Two texts contradict when they say different values of one name's one thing. */
const subjectOf = (text: string) => /^(.+?) is (now )?/u.exec(text)?.[1];
const judge = () =>
  new ScriptedJudge((existing, incoming) => {
    const a = subjectOf(existing);
    return a !== undefined && a === subjectOf(incoming) && existing !== incoming ? 'contradicts' : 'different';
  });

/** The same id sequence for both stores: ids break ties, so both must hold the same ones. */
function seededIds(): () => string {
  let n = 0;
  return () => {
    n += 1;
    return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
  };
}

async function play(h: ServiceHarness, who: ReturnType<typeof principal>, steps: readonly Step[]): Promise<void> {
  for (const s of steps) {
    if (s.op === 'wait') h.clock.advance(s.hours * 3600);
    else {
      const origin = s.origin === 0 ? undefined : `chat-${s.origin}`;
      const content = s.op === 'fact' ? fact(s) : (OTHER[s.text] ?? '');
      const kind = s.op === 'fact' ? 'fact' : s.kind;
      await h.service.remember(who, CLIENT, {
        content,
        kind,
        ...(origin && { origin }),
        ...(s.op === 'fact' && s.pinned && { pinned: true }),
      });
      h.clock.advance(60);
    }
  }
}

const seen = (answer: readonly RecalledMemory[]) => answer.map((m) => ({ id: m.id, score: m.score }));

/** The two answers agree, up to the order of memories whose scores are within TIE of each other. */
function agree(sql: readonly RecalledMemory[], reference: readonly RecalledMemory[]): boolean {
  if (sql.length !== reference.length) return false;
  const key = (m: RecalledMemory) => m.id;
  if ([...sql.map(key)].sort().join() !== [...reference.map(key)].sort().join()) return false;
  return sql.every((m, i) => {
    const r = reference[i];
    if (!r) return false;
    if (r.id === m.id) return Math.abs(r.score - m.score) < TIE;
    return Math.abs(r.score - m.score) < TIE;
  });
}

let db: PgliteSqlClient;
beforeAll(async () => {
  db = await freshDatabase(256);
}, 120_000);
afterAll(async () => db.close());

test('recall orders the same memories the same way on PGlite and in the reference store, for random memories and queries', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(step, { minLength: 4, maxLength: 28 }),
      fc.array(query, { minLength: 1, maxLength: 4 }),
      async (steps, queries) => {
        await truncateAll(db);
        const who = principal();
        const sql = serviceOver(db, { judge: judge(), newId: seededIds() });
        const reference = serviceOver('memory', { judge: judge(), newId: seededIds() });
        await play(sql, who, steps);
        await play(reference, who, steps);
        for (const [i, q] of queries.entries()) {
          const include = i % 2 === 1;
          const ask = { query: q, limit: 6, includeSuperseded: include };
          const fromSql = await sql.service.recall(who, ask);
          const fromReference = await reference.service.recall(who, ask);
          if (!agree(fromSql, fromReference)) {
            throw new Error(
              `${JSON.stringify(q)} (include_superseded ${include})\n  sql:       ${JSON.stringify(seen(fromSql))}\n  reference: ${JSON.stringify(seen(fromReference))}`,
            );
          }
        }
      },
    ),
    { numRuns: 100 },
  );
}, 600_000);
