import type { MemoryStores } from '../../ports/memory-stores.js';
import { InMemoryCurationStore } from './curation-store.js';
import { InMemoryMaintenanceStore } from './maintenance-store.js';
import { InMemoryPageStore } from './page-store.js';
import { MemoryState } from './state.js';
import { InMemoryTransferStore } from './transfer-store.js';

/**
 * The memory's stores over one in-memory state: the reference implementation of the ports. It
 * passes the same conformance suite as PGlite and PostgreSQL (test/store/), so the policy's unit
 * tests run on it without a database. Not for serving: nothing is persisted.
 */
export function inMemoryStores(state = new MemoryState()): MemoryStores & { readonly state: MemoryState } {
  return {
    state,
    curation: new InMemoryCurationStore(state),
    page: new InMemoryPageStore(state),
    transfer: new InMemoryTransferStore(state),
    maintenance: new InMemoryMaintenanceStore(state),
  };
}
