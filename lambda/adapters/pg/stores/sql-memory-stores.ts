import { VECTOR_CELLS } from '../../../memory/policy/ranking.js';
import type { MemoryStores } from '../../../ports/memory-stores.js';
import type { RetryPolicy } from '../retry.js';
import type { SqlClient } from '../sql-client.js';
import { SqlCurationStore } from './sql-curation-store.js';
import { SqlMaintenanceStore } from './sql-maintenance-store.js';
import { SqlPageStore } from './sql-page-store.js';
import { SqlTransferStore } from './sql-transfer-store.js';
import { StatementRunner } from './statement-runner.js';

/** How a store's writes mark partitions for the sweeper's cells (decision 0118). */
export interface CellMarking {
  /** The size from which a partition is marked: {@link VECTOR_CELLS}.from, unless a test sweeps with a smaller one. */
  readonly from: number;
}

/** The memory's stores over one SQL client: PGlite in-process, PGlite over a socket, PostgreSQL, CockroachDB. */
export function sqlMemoryStores(db: SqlClient, retry?: RetryPolicy, cells: CellMarking = VECTOR_CELLS): MemoryStores {
  const runner = new StatementRunner(db, retry);
  return {
    curation: new SqlCurationStore(runner, cells.from),
    page: new SqlPageStore(runner),
    transfer: new SqlTransferStore(runner, cells.from),
    maintenance: new SqlMaintenanceStore(runner),
  };
}
