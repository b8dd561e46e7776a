import type { MemoryStores } from '../../../ports/memory-stores.js';
import type { RetryPolicy } from '../retry.js';
import type { SqlClient } from '../sql-client.js';
import { SqlCurationStore } from './sql-curation-store.js';
import { SqlMaintenanceStore } from './sql-maintenance-store.js';
import { SqlPageStore } from './sql-page-store.js';
import { SqlTransferStore } from './sql-transfer-store.js';
import { StatementRunner } from './statement-runner.js';

/** The memory's stores over one SQL client: PGlite in-process, PGlite over a socket, PostgreSQL, CockroachDB. */
export function sqlMemoryStores(db: SqlClient, retry?: RetryPolicy): MemoryStores {
  const runner = new StatementRunner(db, retry);
  return {
    curation: new SqlCurationStore(runner),
    page: new SqlPageStore(runner),
    transfer: new SqlTransferStore(runner),
    maintenance: new SqlMaintenanceStore(runner),
  };
}
