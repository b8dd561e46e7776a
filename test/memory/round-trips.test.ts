import { measureRoundTrips } from '../../bench/round-trips-lib.js';
import { freshDatabase } from '../support/database.js';

test('every tool call stays within its SQL round-trip budget (recall 1, remember ≤ 3 even when contended, forget 1)', async () => {
  const db = await freshDatabase();
  const rows = await measureRoundTrips(db);
  await db.close();
  expect(rows.length).toBe(11);
  for (const row of rows)
    expect({ call: row.call, within: row.roundTrips <= row.budget && row.roundTrips > 0 }).toEqual({
      call: row.call,
      within: true,
    });
  expect(rows.find((r) => r.call === 'recall')?.roundTrips).toBe(1);
  // Neighbours, the failed first attempt, the queued one (decision 0099).
  expect(rows.find((r) => r.call.startsWith('remember: contended'))?.roundTrips).toBe(3);
});
