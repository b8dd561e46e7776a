import { all, compareBy, type Condition, holds, type MemoryFacts, not, type OrderField, pinned, spared } from './condition.js';
import { isLive } from './expiry.js';
import { type Formula, VALUES } from './formula.js';

/**
 * Who a ceiling may evict: a live memory that is not pinned, and not the memory a new one
 * contradicts (both stay, so the agent can resolve the conflict). Age alone never evicts.
 */
export const EVICTABLE: Condition = all(not(pinned), not(spared));

/**
 * The order a ceiling evicts in, first to go first: superseded memories (policy/supersession.ts)
 * before current ones, then the least recently useful (usefulness is the latest of creation,
 * recall and restatement), then the lowest id, so the order is total. "Next to go" on the memory
 * page reads the same order.
 */
export const EVICTION_ORDER: readonly OrderField[] = ['supersededFirst', 'lastUsefulAt', 'id'];

export const byEvictionOrder = compareBy(EVICTION_ORDER);

/** How many live memories must go for one more to fit under the ceiling. */
export const excessIn = <N, B>(f: Formula<N, B>, live: N, ceiling: N): N =>
  f.greatest(f.constant(0), f.minus(f.plus(live, f.constant(1)), ceiling));

/** {@link excessIn} over values. */
export const excessFor = (live: number, ceiling: number): number => excessIn(VALUES, live, ceiling);

/** What a new memory of a kind costs under its ceiling: the memories to evict, or no room. */
export type Eviction =
  | { readonly room: true; readonly victims: readonly string[] }
  /** Too many of the kind's live memories are pinned (or spared) for one more to fit. */
  | { readonly room: false };

/**
 * The memories a new one evicts: the kind's excess over its ceiling, taken in eviction order from
 * the evictable live ones. Expired memories count for nothing (they leave as expiry instead).
 */
export function evictionFor<M extends MemoryFacts>(
  memories: readonly M[],
  ceiling: number,
  cutoff: Date | null,
  sparedId: string | null,
): Eviction {
  const live = memories.filter((m) => isLive(m, cutoff));
  const excess = excessFor(live.length, ceiling);
  const candidates = live
    .filter((m) => holds(EVICTABLE, m, { cutoff, spared: sparedId }))
    .sort(byEvictionOrder)
    .slice(0, excess);
  return candidates.length < excess ? { room: false } : { room: true, victims: candidates.map((m) => m.id) };
}

/** Whether `adding` memories fit beside `have` live ones without evicting any (an import never evicts). */
export const fitsWithoutEvictionIn = <N, B>(f: Formula<N, B>, have: N, adding: N, ceiling: N): B =>
  f.or(f.equals(adding, f.constant(0)), f.atMost(f.plus(have, adding), ceiling));

/** {@link fitsWithoutEvictionIn} over values. */
export const fitsWithoutEviction = (have: number, adding: number, ceiling: number): boolean =>
  fitsWithoutEvictionIn(VALUES, have, adding, ceiling);
