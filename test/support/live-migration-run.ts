import { expect } from '@jest/globals';
import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { CI_LIVE_RUN, liveMigrationReport, runLiveMigration } from '../pg/live-migration.js';

/**
 * The suite's live-migration run (decision 0099) on one engine: the later migrations applied in
 * batches while traffic runs, the report printed, and what must hold checked — more than one batch,
 * calls during the migration, nothing failed, lost or misplaced, partition counts exact, and no
 * memory without a place but the writes under way when the backfill ended.
 */
export async function liveMigrationHolds(migrator: SqlClient, traffic: SqlClient): Promise<void> {
  const figures = await runLiveMigration(migrator, traffic, CI_LIVE_RUN);
  console.log(liveMigrationReport(figures).join('\n'));
  expect(figures.backfills.find((b) => b.file === '0010_origin_sequence.sql')?.batches).toBeGreaterThan(1);
  expect(figures.callsDuringMigration).toBeGreaterThan(0);
  expect(figures).toMatchObject({ failed: 0, lost: 0, misplaced: 0, placeClashes: 0, partitionMismatches: 0 });
  expect(figures.unplaced).toBeLessThanOrEqual(figures.inFlightAtBackfillEnd);
}
