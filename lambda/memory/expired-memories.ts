import type { Clock } from '../ports/clock.js';
import type { CurationStore } from '../ports/curation-store.js';
import type { CurationRules, Scope } from './model.js';
import { expiredBefore } from './policy/expiry.js';
import { kindRule } from './policy/kinds.js';

/**
 * Where a write removes expired memories before it stores what they stand in the way of (an exact
 * restatement of an expired memory is new, never a revival): the one caller of
 * `expirePartition`, for remember and import alike. Each removal is journaled as `expiry`. The
 * sweeper removes the rest region by region (maintenance/sweeper.ts), and the insert statement
 * removes the partition's others as it writes (statements/curation/insert-memory.ts).
 */
export class ExpiredMemories {
  constructor(
    private readonly store: Pick<CurationStore, 'expirePartition'>,
    private readonly rules: CurationRules,
    private readonly clock: Clock,
  ) {}

  /** Removes the expired memories of one (user, kind); a kind without a TTL has none. Returns how many. */
  async clear(scope: Scope, kind: string): Promise<number> {
    const now = this.clock.now();
    const cutoff = expiredBefore(kindRule(this.rules, kind), now);
    return cutoff ? this.store.expirePartition(scope, kind, cutoff, now) : 0;
  }
}
