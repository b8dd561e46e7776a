import { randomUUID } from 'node:crypto';
import type { PgliteSqlClient } from '../../lambda/adapters/pg/pglite-client.js';
import { BACKFILL_RETRY } from '../../lambda/adapters/pg/schema/backfill.js';
import { defaultRetryPolicy, type RetryEnvironment, type RetryPolicy, withRetry } from '../../lambda/adapters/pg/retry.js';
import type { Query, SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { sql, verbatim } from '../../lambda/adapters/pg/sql/template.js';
import { sqlMemoryStores } from '../../lambda/adapters/pg/stores/sql-memory-stores.js';
import { StoreBusyError } from '../../lambda/memory/errors.js';
import type { InsertPlan } from '../../lambda/ports/curation-store.js';
import { freshDatabase, truncateAll } from '../support/database.js';
import { axis } from '../support/vectors.js';

const sqlError = (code: string) => Object.assign(new Error(`simulated SQLSTATE ${code}`), { code });

/**
 * A SqlClient over a real PGlite that makes the next `failures` statements fail the way a
 * serialization failure does: the statement really runs, inside a transaction that is then rolled
 * back, and the caller gets SQLSTATE `code`. What reached the database can be counted afterwards.
 */
class FlakySqlClient implements SqlClient {
  readonly engine = 'postgres' as const;
  attempts = 0;

  constructor(
    private readonly real: PgliteSqlClient,
    private failures: number,
    private readonly code = '40001',
  ) {}

  /** The insert statement fails; every other statement (the queue's lock) runs as it is. */
  async query<R>(query: Query): Promise<R[]> {
    if (query.statement?.name !== 'curation/insert-memory') return this.real.query<R>(query);
    this.attempts += 1;
    if (this.failures === 0) return this.real.query<R>(query);
    this.failures -= 1;
    await this.real.db.transaction(async (tx) => {
      await tx.query(query.text, [...query.values]);
      throw sqlError(this.code);
    });
    throw new Error('unreachable: the transaction always fails');
  }

  exec(script: string): Promise<void> {
    return this.real.exec(script);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The same, with transactions: records which attempts ran in one, and what each transaction locked first. */
class QueueingFlakyClient extends FlakySqlClient {
  readonly locked: unknown[][] = [];
  readonly inTransaction: boolean[] = [];
  private open = false;

  override query<R>(query: Query): Promise<R[]> {
    if (query.statement?.name === 'curation/lock-partition') this.locked.push([...query.values]);
    if (query.statement?.name === 'curation/insert-memory') this.inTransaction.push(this.open);
    return super.query<R>(query);
  }

  async transaction<T>(work: (session: SqlClient) => Promise<T>): Promise<T> {
    this.open = true;
    try {
      return await work(this);
    } finally {
      this.open = false;
    }
  }
}

const policy: RetryPolicy = { attempts: 4, baseDelayMs: 1, maxDelayMs: 4, budgetMs: 5_000 };
const scope = { region: 'eu-central-1', userId: randomUUID() };
const T0 = new Date('2026-03-01T00:00:00Z');
const plan = (content: string, i: number): InsertPlan => ({
  scope,
  id: randomUUID(),
  kind: 'fact',
  content,
  fingerprint: content,
  embedding: axis(i),
  terms: content.split(' '),
  pinned: false,
  source: { agent: 'a', client: 'tests/1', origin: null, at: T0 },
  conflictsWith: undefined,
  ceiling: 1,
  pinLimit: 10,
  sourcesKept: 3,
  expiredBefore: null,
});

let db: PgliteSqlClient;
const count = async (table: string) =>
  (await db.query<{ n: number }>(sql`SELECT count(*)::int4 AS n FROM ${verbatim(table)}`))[0]?.n;

beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => db.close());
beforeEach(async () => {
  await truncateAll(db);
  // One memory already fills the kind (ceiling 1): every attempt below evicts it and journals that.
  await sqlMemoryStores(db).curation.insert(plan('the old one', 0), T0);
});

describe('a remember that meets serialization failures', () => {
  test.each([0, 1, 3])('after %i serialization failures it succeeds, written exactly once', async (failures) => {
    const flaky = new FlakySqlClient(db, failures);
    const result = await sqlMemoryStores(flaky, policy).curation.insert(plan('the new one', 1), T0);
    expect(result).toMatchObject({ status: 'inserted', evicted: 1 });
    expect(flaky.attempts).toBe(failures + 1);
    // Each failed attempt had inserted, evicted and journaled before its rollback: none of it stayed.
    expect((await db.query<{ content: string }>(sql`SELECT content FROM memories`)).map((r) => r.content)).toEqual([
      'the new one',
    ]);
    expect(await count('journal')).toBe(1);
  });

  test('at the bound it stops with a clear, retryable error and nothing written', async () => {
    const flaky = new FlakySqlClient(db, policy.attempts);
    const failure = sqlMemoryStores(flaky, policy).curation.insert(plan('the new one', 1), T0);
    await expect(failure).rejects.toThrow(StoreBusyError);
    await expect(failure).rejects.toThrow(`gave up after ${policy.attempts} attempts`);
    await expect(failure).rejects.toMatchObject({ retryable: true, expose: true, cause: { code: '40001' } });
    expect(flaky.attempts).toBe(policy.attempts);
    expect((await db.query<{ content: string }>(sql`SELECT content FROM memories`)).map((r) => r.content)).toEqual([
      'the old one',
    ]);
    expect(await count('journal')).toBe(0);
  });

  test('the first attempt runs alone; each retry queues: a transaction that locks the partition first', async () => {
    const flaky = new QueueingFlakyClient(db, 2);
    await sqlMemoryStores(flaky, policy).curation.insert(plan('the new one', 1), T0);
    expect(flaky.inTransaction).toEqual([false, true, true]);
    expect(flaky.locked).toEqual([
      // The lock's region, user, whether the user's row is wanted (no pin), and the kind.
      [scope.region, scope.userId, false, 'fact'],
      [scope.region, scope.userId, false, 'fact'],
    ]);
    expect(await count('memories')).toBe(1);
  });

  test('a deadlock (40P01) is retried too', async () => {
    const flaky = new FlakySqlClient(db, 2, '40P01');
    await sqlMemoryStores(flaky, policy).curation.insert(plan('the new one', 1), T0);
    expect(flaky.attempts).toBe(3);
    expect(await count('memories')).toBe(1);
  });

  test.each([
    ['a unique violation', '23505'],
    ['statement completion unknown, which may have committed', '40003'],
  ])('%s is not retried', async (_label, code) => {
    const flaky = new FlakySqlClient(db, 1, code);
    await expect(sqlMemoryStores(flaky, policy).curation.insert(plan('the new one', 1), T0)).rejects.toMatchObject({ code });
    expect(flaky.attempts).toBe(1);
  });
});

describe('the backoff', () => {
  /** Fake time: sleeping advances the clock; the jitter draw is fixed. */
  const fakeTime = (draw: number) => {
    let now = 0;
    const slept: number[] = [];
    const env: RetryEnvironment = {
      now: () => now,
      random: () => draw,
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
    };
    return { env, slept };
  };
  const alwaysBusy = () => Promise.reject(sqlError('40001'));

  test('grows exponentially up to its ceiling, with full jitter below it', async () => {
    const { env, slept } = fakeTime(1);
    const bounded: RetryPolicy = { attempts: 7, baseDelayMs: 10, maxDelayMs: 100, budgetMs: 60_000 };
    await expect(withRetry(alwaysBusy, bounded, env)).rejects.toThrow('gave up after 7 attempts');
    expect(slept).toEqual([10, 20, 40, 80, 100, 100]);
    const half = fakeTime(0.5);
    await expect(withRetry(alwaysBusy, bounded, half.env)).rejects.toThrow(StoreBusyError);
    expect(half.slept).toEqual([5, 10, 20, 40, 50, 50]);
  });

  test('stops early when the next wait would pass the time budget', async () => {
    const { env, slept } = fakeTime(1);
    const tight: RetryPolicy = { attempts: 50, baseDelayMs: 100, maxDelayMs: 1_000, budgetMs: 1_000 };
    await expect(withRetry(alwaysBusy, tight, env)).rejects.toThrow('gave up after 4 attempts');
    expect(slept).toEqual([100, 200, 400]);
  });

  test("a backfill batch that deadlocks after 5 s is retried, where a request's policy gives up (decision 0122)", async () => {
    // The first attempt runs 5 s on a loaded server before the deadlock is found, then the retry succeeds.
    const deadlockAfter5s = (env: RetryEnvironment) => {
      let calls = 0;
      return async () => {
        calls += 1;
        if (calls > 1) return 'done';
        await env.sleep(5_000);
        throw sqlError('40P01');
      };
    };
    const request = fakeTime(1);
    await expect(withRetry(deadlockAfter5s(request.env), defaultRetryPolicy, request.env)).rejects.toThrow(
      'gave up after 1 attempts',
    );
    const backfill = fakeTime(1);
    expect(await withRetry(deadlockAfter5s(backfill.env), BACKFILL_RETRY, backfill.env)).toBe('done');
  });

  test('returns the first success and does not sleep before the first attempt', async () => {
    const { env, slept } = fakeTime(1);
    let calls = 0;
    const flaky = () => (++calls < 3 ? Promise.reject(sqlError('40001')) : Promise.resolve('done'));
    expect(await withRetry(flaky, policy, env)).toBe('done');
    expect(calls).toBe(3);
    expect(slept).toEqual([1, 2]);
  });
});
