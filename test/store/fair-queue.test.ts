import { inLane } from '../../lambda/adapters/pg/fair-queue.js';
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
    await db.query('SELECT count(*) FROM generate_series(1, 20000)');
    done.push(lane);
  });

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
  const done: string[] = [];
  const flood = Array.from({ length: 40 }, () => statement('flood', done));
  await new Promise((resolve) => setImmediate(resolve));
  const request = inLane('quiet', async () => {
    for (let i = 0; i < 3; i += 1) {
      await db.query('SELECT 1');
      done.push('quiet');
    }
  });
  await Promise.all([...flood, request]);
  const quiet = done.flatMap((lane, i) => (lane === 'quiet' ? [i] : []));
  expect(quiet).toHaveLength(3);
  expect((quiet[2] ?? 99) - (quiet[0] ?? 0)).toBe(2);
  expect(quiet[0]).toBeLessThanOrEqual(2);
});

test('two lanes that both flood take turns', async () => {
  const done: string[] = [];
  await Promise.all(Array.from({ length: 20 }, (_, i) => statement(i % 2 === 0 ? 'a' : 'b', done)));
  const firstTen = done.slice(0, 10);
  expect(firstTen.filter((l) => l === 'a').length).toBeGreaterThanOrEqual(4);
  expect(firstTen.filter((l) => l === 'b').length).toBeGreaterThanOrEqual(4);
});
