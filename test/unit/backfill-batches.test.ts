import {
  BACKFILL_RETRY,
  BATCH_HOLD_MS,
  BATCH_LOCK_WAIT_MS,
  BATCH_TARGET_MS,
  firstBatchSize,
  MAX_CANCELLED_AT_FLOOR,
  MIN_BATCH_ROWS,
  nextBatchSize,
  runBackfill,
} from '../../lambda/adapters/pg/schema/backfill.js';
import type { Query, SqlClient } from '../../lambda/adapters/pg/sql-client.js';

const HOLD_BOUND = { code: '57014', message: 'canceling statement due to statement timeout' };
const LOCK_WAIT = { code: '55P03', message: 'canceling statement due to lock timeout' };

/** A backfill's batch follows how long the last one held its rows (decision 0153), within hard bounds (0154). */

test('a slow batch halves the next, never below the floor; a fast one doubles it, never above the size asked for', () => {
  expect(nextBatchSize(2_000, BATCH_TARGET_MS + 1, 2_000)).toBe(1_000);
  expect(nextBatchSize(150, BATCH_TARGET_MS * 10, 2_000)).toBe(MIN_BATCH_ROWS);
  expect(nextBatchSize(MIN_BATCH_ROWS, BATCH_TARGET_MS * 10, 2_000)).toBe(MIN_BATCH_ROWS);
  expect(nextBatchSize(500, BATCH_TARGET_MS / 8, 2_000)).toBe(1_000);
  expect(nextBatchSize(1_500, BATCH_TARGET_MS / 8, 2_000)).toBe(2_000);
  expect(nextBatchSize(800, BATCH_TARGET_MS / 2, 2_000)).toBe(800);
});

test('a size asked for below the floor is kept: a test’s batches of 7 stay batches of 7', () => {
  expect(nextBatchSize(7, BATCH_TARGET_MS * 10, 7)).toBe(7);
  expect(nextBatchSize(7, 0, 7)).toBe(7);
});

/**
 * A client whose backfill batches change as many rows as asked until `rows` are done, cancelled where
 * `cancel` says: by their hold bound (57014), or by their lock wait (55P03) when `failure` says so.
 */
function batchesSeen(rows: number, cancel: (call: number, size: number) => boolean, failure = HOLD_BOUND) {
  const sizes: number[] = [];
  const bounds: string[][] = [];
  let left = rows;
  const db = {
    engine: 'postgres',
    queue: async (locks: readonly Query[], query: Query) => {
      const size = Number(/LIMIT (\d+)/.exec(query.text)?.[1]);
      sizes.push(size);
      bounds.push(locks.map((l) => l.text));
      if (cancel(sizes.length, size)) throw Object.assign(new Error(failure.message), { code: failure.code });
      const changed = Math.min(size, left);
      left -= changed;
      return [{ changed }];
    },
  } as unknown as SqlClient;
  return { db, sizes, bounds };
}

const STEP = 'UPDATE t SET done = true WHERE id IN (SELECT id FROM t WHERE NOT done LIMIT {{batch}})';

test('the first batch is the floor; every batch runs under its lock wait and hold bounds (decision 0154)', async () => {
  const seen = batchesSeen(1_000, () => false);
  expect(await runBackfill(seen.db, STEP, { file: 'f.sql', step: 1, batchRows: 2_000 })).toBe(1_000);
  expect(seen.sizes[0]).toBe(firstBatchSize(2_000));
  expect(firstBatchSize(2_000)).toBe(MIN_BATCH_ROWS);
  expect(firstBatchSize(7)).toBe(7);
  for (const sent of seen.bounds) {
    expect(sent).toEqual([
      `SET LOCAL lock_timeout = '${BATCH_LOCK_WAIT_MS}ms'`,
      `SET LOCAL statement_timeout = '${BATCH_HOLD_MS}ms'`,
    ]);
  }
});

test('a batch cancelled at its hold bound is tried again at half its size, and nothing is lost', async () => {
  const seen = batchesSeen(3_000, (call) => call === 4);
  expect(await runBackfill(seen.db, STEP, { file: 'f.sql', step: 1, batchRows: 2_000, restAfterCancelMs: 0 })).toBe(3_000);
  // 100, 200, 400 (fast: doubled), 800 cancelled, then 400.
  expect(seen.sizes.slice(0, 5)).toEqual([100, 200, 400, 800, 400]);
});

test('a batch that gave way to held rows at every retry rests and goes on: busy traffic does not stop a migration', async () => {
  const attempts = BACKFILL_RETRY.attempts;
  const seen = batchesSeen(300, (call) => call <= attempts, LOCK_WAIT);
  expect(await runBackfill(seen.db, STEP, { file: 'f.sql', step: 1, batchRows: 2_000, restAfterCancelMs: 0 })).toBe(300);
  // The first batch's every attempt gave way; it is tried again at the floor, then the batches grow as before.
  expect(seen.sizes.slice(0, attempts + 2)).toEqual([...Array(attempts + 1).fill(MIN_BATCH_ROWS), 200]);
});

test('batches cancelled at the floor again and again stop the step with a sentence that says why and what to do', async () => {
  const seen = batchesSeen(3_000, () => true);
  const run = runBackfill(seen.db, STEP, { file: 'f.sql', step: 1, batchRows: 2_000, restAfterCancelMs: 0 });
  await expect(run).rejects.toThrow(
    `f.sql: backfill 1 stopped: ${MAX_CANCELLED_AT_FLOOR} batches of ${MIN_BATCH_ROWS} rows in a row ran past ${BATCH_HOLD_MS} ms`,
  );
  expect(seen.sizes).toHaveLength(MAX_CANCELLED_AT_FLOOR);
});
