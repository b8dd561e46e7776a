import { sql } from '../../lambda/adapters/pg/sql/template.js';
import {
  BACKGROUND_LANE,
  BACKGROUND_LEAST_WAIT_MS,
  BACKGROUND_MOST_WAIT_MS,
  BACKGROUND_SHARE,
  FairQueue,
  inLane,
  REQUEST_LINGER_MS,
  RequestActivity,
  requestActivity,
} from '../../lambda/adapters/pg/fair-queue.js';
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
  // Requests on the same clock, none in progress: these tests are about lanes, not about the background's hold.
  const turns = new FairQueue(() => clock, new RequestActivity(() => clock));
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

test('a lane that floods does not rest for the background: only another caller makes it rest', async () => {
  const statementOf = manualQueue();
  const done: string[] = [];
  // A background statement has just had its turn (outside any lane): it is no caller.
  await statementOf(BACKGROUND_LANE, done, 'SELECT 1', 1);
  const started = performance.now();
  await Promise.all(Array.from({ length: 6 }, () => statementOf('busy', done, 'SELECT 1', 400)));
  expect(done).toHaveLength(7);
  // Resting after its second turn would have waited 1,200 ms on the real clock, for six statements of microseconds.
  expect(performance.now() - started).toBeLessThan(1_000);
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

/** Resolves after `ms` of the real clock: time for the queue's looks (every `REQUEST_LINGER_MS`) to come. */
const realMs = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A queue on the same PGlite whose clock and requests the test moves itself, and a statement in its
 * background lane (outside any `inLane`) whose turn lasts `costMs` of that clock.
 */
function heldQueue() {
  const clock = { ms: 0 };
  const requests = new RequestActivity(() => clock.ms);
  const turns = new FairQueue(() => clock.ms, requests);
  const background = (done: string[], costMs = 0) =>
    turns.run(async () => {
      await db.db.query('SELECT 1');
      clock.ms += costMs;
      done.push(costMs === 0 ? 'background' : `background ${costMs}`);
    });
  return { clock, requests, background };
}

test('a background statement waits while a request is in progress, and goes once requests have paused', async () => {
  const { clock, requests, background } = heldQueue();
  const done: string[] = [];
  requests.begin();
  const sweep = background(done);
  clock.ms += BACKGROUND_LEAST_WAIT_MS / 2;
  await realMs(4 * REQUEST_LINGER_MS);
  expect(done).toEqual([]);
  requests.end();
  clock.ms += REQUEST_LINGER_MS / 2;
  await realMs(4 * REQUEST_LINGER_MS);
  // Within the linger after the last request: the caller's next call may be on its way.
  expect(done).toEqual([]);
  clock.ms += REQUEST_LINGER_MS;
  await sweep;
  expect(done).toEqual(['background']);
});

test('past its least wait, a background statement goes in the next pause between requests, however short; the next waits again', async () => {
  const { clock, requests, background } = heldQueue();
  const done: string[] = [];
  requests.begin();
  const first = background(done);
  const second = background(done);
  clock.ms += BACKGROUND_LEAST_WAIT_MS;
  await realMs(4 * REQUEST_LINGER_MS);
  // A request is in progress: it waits for the request's end, not for the linger after it.
  expect(done).toEqual([]);
  requests.end();
  requests.begin();
  await first;
  expect(done).toEqual(['background']);
  requests.end();
  requests.begin();
  await realMs(4 * REQUEST_LINGER_MS);
  // The second waits its own least wait from the first's turn.
  expect(done).toEqual(['background']);
  clock.ms += BACKGROUND_LEAST_WAIT_MS;
  requests.end();
  await second;
  expect(done).toEqual(['background', 'background']);
});

test("the background's bound grows with its last turn: after a long statement, a pause between requests lets it go later", async () => {
  const { clock, requests, background: costing } = heldQueue();
  const done: string[] = [];
  const background = (costMs: number) => costing(done, costMs);
  // No request yet: the first goes at once, and lasts 80 ms of the queue's clock: 8 s over a 1 % share.
  await background(80);
  requests.begin();
  const next = background(1);
  // The turn is charged when the code it resumed waits again: here, now.
  await new Promise((resolve) => setImmediate(resolve));
  expect(80 / BACKGROUND_SHARE).toBeGreaterThan(BACKGROUND_LEAST_WAIT_MS);
  clock.ms += BACKGROUND_LEAST_WAIT_MS;
  requests.end();
  requests.begin();
  await realMs(4 * REQUEST_LINGER_MS);
  expect(done).toEqual(['background 80']);
  clock.ms += 80 / BACKGROUND_SHARE - BACKGROUND_LEAST_WAIT_MS;
  requests.end();
  await next;
  expect(done).toEqual(['background 80', 'background 1']);
});

test('while requests overlap without a pause, even after a turn of seconds (a VACUUM at start), it waits at most its longest bound', async () => {
  const { clock, requests, background: costing } = heldQueue();
  const done: string[] = [];
  const background = (costMs: number) => costing(done, costMs);
  await background(3_000);
  requests.begin();
  const next = background(1);
  await new Promise((resolve) => setImmediate(resolve));
  clock.ms += BACKGROUND_MOST_WAIT_MS - 1;
  await realMs(4 * REQUEST_LINGER_MS);
  expect(done).toEqual(['background 3000']);
  clock.ms += 1;
  await next;
  expect(done).toEqual(['background 3000', 'background 1']);
  requests.end();
});

test('with no request about, background statements go at once', async () => {
  const { background } = heldQueue();
  const done: string[] = [];
  await Promise.all([background(done), background(done), background(done)]);
  expect(done).toEqual(['background', 'background', 'background']);
});

test("no background statement runs between a request's statements, though the request computes between them", async () => {
  // The real queue of the database, the real clock, and the process's requests as inLane counts them.
  const done: string[] = [];
  let sweeping = true;
  const sweep = (async () => {
    while (sweeping) {
      await db.query(sql`SELECT count(*) FROM generate_series(1, 2000)`);
      done.push('background');
    }
  })();
  await realMs(20);
  await inLane('caller', async () => {
    for (let i = 0; i < 4; i += 1) {
      await db.query(sql`SELECT 1`);
      done.push('caller');
      // Work between two statements (the next step's embedding, say): the queue is free meanwhile.
      await realMs(5);
    }
  });
  sweeping = false;
  await sweep;
  const calls = done.flatMap((lane, i) => (lane === 'caller' ? [i] : []));
  expect(calls).toHaveLength(4);
  expect((calls[3] ?? 0) - (calls[0] ?? 0)).toBe(3);
  expect(done.filter((lane) => lane === 'background').length).toBeGreaterThan(0);
});

test('a request counts as in progress until the promise it returns settles, failed or not', async () => {
  expect(requestActivity.busy).toBe(false);
  let finish: () => void = () => undefined;
  const call = inLane('caller', () => new Promise<void>((resolve) => (finish = resolve)));
  expect(requestActivity.busy).toBe(true);
  finish();
  await call;
  expect(requestActivity.busy).toBe(false);
  await expect(inLane('caller', () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
  expect(requestActivity.busy).toBe(false);
  expect(() =>
    inLane('caller', () => {
      throw new Error('thrown');
    }),
  ).toThrow('thrown');
  expect(requestActivity.busy).toBe(false);
});
