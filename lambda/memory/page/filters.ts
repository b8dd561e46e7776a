import type { MemoryFilters } from '../../ports/page-store.js';
import type { Memory } from '../model.js';

/**
 * Whether a memory passes the listing's filters, as the browse statement reads them: agent and
 * client exactly, a piece of the origin in any case, pinned, and linked to a conflicting memory.
 * Search applies it to what recall ranked (page-service.ts).
 */
export function matchesFilters(m: Memory, f: MemoryFilters): boolean {
  return (
    (f.agent === undefined || m.source.agent === f.agent) &&
    (f.client === undefined || m.source.client === f.client) &&
    (f.origin === undefined || (m.source.origin ?? '').toLowerCase().includes(f.origin.toLowerCase())) &&
    (f.pinned === undefined || m.pinned === f.pinned) &&
    (f.conflicting === undefined || m.conflicts.length > 0 === f.conflicting)
  );
}
