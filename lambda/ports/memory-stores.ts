import type { CurationStore } from './curation-store.js';
import type { MaintenanceStore } from './maintenance-store.js';
import type { PageStore } from './page-store.js';
import type { TransferStore } from './transfer-store.js';

/** The memory's storage, one port per use case: what the composition root hands the services. */
export interface MemoryStores {
  readonly curation: CurationStore;
  readonly page: PageStore;
  readonly transfer: TransferStore;
  readonly maintenance: MaintenanceStore;
}
