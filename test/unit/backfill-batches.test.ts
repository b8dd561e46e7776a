import { BATCH_TARGET_MS, MIN_BATCH_ROWS, nextBatchSize } from '../../lambda/adapters/pg/schema/backfill.js';

/** A backfill's batch follows how long the last one held its rows (decision 0153). */

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
