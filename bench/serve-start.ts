import { type ChosenBuffers, chooseBuffers } from '../lambda/adapters/pg/pglite-buffers.js';
import { PgliteSqlClient } from '../lambda/adapters/pg/pglite-client.js';
import { migrate } from '../lambda/adapters/pg/schema/migrate.js';

/** A PGlite folder opened as a `naaba serve` start opens it, and what that start did. */
export interface ServeStart {
  readonly sql: PgliteSqlClient;
  /** The shared buffers the folder's data chose (no setting given). */
  readonly buffers: ChosenBuffers;
  /** The tables the start vacuumed (`vacuumWhereNeeded`). */
  readonly vacuumed: readonly string[];
  /** How long the start took, from opening to ready to serve (ms). */
  readonly ms: number;
}

/**
 * Opens the PGlite folder `dir` again as a `naaba serve` start does (composition.ts `openSql`):
 * shared buffers sized to the folder's data with no setting (decision 0155), the schema checked,
 * then the statistics refreshed and the tables vacuumed where needed before anyone is served
 * (decision 0117). A bench that filled a scratch folder, which opened empty with the least
 * buffers, times recall on what a server started on that folder would hold. The statistics timer
 * is left to the bench, which runs the refresh itself and times it.
 */
export async function openAsServeStarts(dir: string, dimensions: number): Promise<ServeStart> {
  const t = performance.now();
  const buffers = chooseBuffers(dir);
  const sql = await PgliteSqlClient.open(dir);
  await migrate(sql, { embeddingDimensions: dimensions });
  const vacuumed = await sql.vacuumWhereNeeded();
  return { sql, buffers, vacuumed, ms: performance.now() - t };
}

/** What a start chose, as the benches print it. */
export const startLine = (start: ServeStart) =>
  `reopened as \`naaba serve\` starts: ${start.buffers.mb} MB of shared buffers for a database of ${Math.ceil(start.buffers.dataBytes / 1024 / 1024)} MB; vacuumed ${start.vacuumed.join(', ') || 'nothing'}; ready in ${(start.ms / 1000).toFixed(1)} s`;
