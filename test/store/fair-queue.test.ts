import { sql } from '../../lambda/adapters/pg/sql/template.js';
import { FairQueue, inLane } from '../../lambda/adapters/pg/fair-queue.js';
import { freshDatabase } from '../support/database.js';

/**
 * The fair queue on a real PGlite (decision 0063): statements of a lane that floods do not make
 * another lane's statements wait behind all of them.
 */

let db: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(() => db.close());

/** A statement that takes a few milliseconds, recording its lane when it ends. */
const statement = (lane: string, done: string[]) =>
  inLane(lane, async () => {
    await db.query(sql`SELECT count(*) FROM generate_series(1, 20000)`);
    done.push(lane);
  });

/**
 * A queue of its own on the same PGlite whose turns cost what the test says, not the wall time
 * they took: which lane goes next is then the queue's choice alone, however busy the machine (a
 * stalled turn on the real clock charges its lane as if it had flooded).
 */
function manualQueue() {
  let clock = 0;
  const turns = new FairQueue(() => clock);
  return (lane: string, done: string[], sql: string, costMs: number) =>
    inLane(lane, () =>
      turns.run(async () => {
        await db.db.query(sql);
        clock += costMs;
        done.push(lane);
      }),
    );
}

test('one statement of a quiet lane runs after at most one of a lane with forty queued', async () => {
  const done: string[] = [];
  const flood = Array.from({ length: 40 }, () => statement('flood', done));
  await new Promise((resolve) => setImmediate(resolve));
  const quiet = statement('quiet', done);
  await Promise.all([...flood, quiet]);
  expect(done.indexOf('quiet')).toBeLessThanOrEqual(2);
  expect(done).toHaveLength(41);
});

test('the statements of one quiet request follow each other while a flood waits', async () => {
  const statementOf = manualQueue();
  const done: string[] = [];
  const flood = Array.from({ length: 40 }, () => statementOf('flood', done, 'SELECT count(*) FROM generate_series(1, 20000)', 5));
  await new Promise((resolve) => setImmediate(resolve));
  const request = (async () => {
    for (let i = 0; i < 3; i += 1) await statementOf('quiet', done, 'SELECT 1', 0.1);
  })();
  await Promise.all([...flood, request]);
  const quiet = done.flatMap((lane, i) => (lane === 'quiet' ? [i] : []));
  expect(quiet).toHaveLength(3);
  expect((quiet[2] ?? 99) - (quiet[0] ?? 0)).toBe(2);
  expect(quiet[0]).toBeLessThanOrEqual(2);
});

test('two lanes that both flood take turns', async () => {
  const statementOf = manualQueue();
  const done: string[] = [];
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      statementOf(i % 2 === 0 ? 'a' : 'b', done, 'SELECT count(*) FROM generate_series(1, 20000)', 5),
    ),
  );
  const firstTen = done.slice(0, 10);
  expect(firstTen.filter((l) => l === 'a').length).toBeGreaterThanOrEqual(4);
  expect(firstTen.filter((l) => l === 'b').length).toBeGreaterThanOrEqual(4);
});

test('a lane that floods while another is active rests after each turn, so one arriving a moment later goes first', async () => {
  const statementOf = manualQueue();
  const done: string[] = [];
  // The quiet lane has had a turn: it is active. Each flood turn costs 250 ms of the queue's clock.
  await statementOf('quiet', done, 'SELECT 1', 1);
  const flood = Array.from({ length: 4 }, () => statementOf('flood', done, 'SELECT 1', 250));
  await flood[2];
  // Three turns: about 600 ms used lately (decayed), past FLOOD_USE_MS, so the flood rests 3 × 250 ms after its third.
  await new Promise((resolve) => setTimeout(resolve, 50));
  await statementOf('quiet', done, 'SELECT 1', 1);
  await Promise.all(flood);
  expect(done).toEqual(['quiet', 'flood', 'flood', 'flood', 'quiet', 'flood']);
});

test('a lane alone never rests: with no one else active, a flood runs back to back', async () => {
  const statementOf = manualQueue();
  const done: string[] = [];
  const started = performance.now();
  await Promise.all(Array.from({ length: 6 }, () => statementOf('alone', done, 'SELECT 1', 400)));
  expect(done).toHaveLength(6);
  // 2,400 ms of the queue's clock: resting would have waited over three times that on the real one.
  expect(performance.now() - started).toBeLessThan(5_000);
});
