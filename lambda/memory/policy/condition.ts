/**
 * The few tests the curation rules make of a memory, written as data so that one statement of a
 * rule has two readers: {@link holds} here, for the service and the in-memory store, and the SQL
 * renderer of the pg store (lambda/adapters/pg/sql/policy.ts), which writes the same rule as a
 * predicate. A rule is stated once; neither reader can drift from it.
 */

/** What the rules read of a memory. */
export interface MemoryFacts {
  readonly id: string;
  readonly pinned: boolean;
  readonly lastUsefulAt: Date;
  /** The memory that replaced this one, while it exists (policy/supersession.ts); absent or null when current. */
  readonly supersededBy?: string | null;
}

/**
 * What a rule compares a memory with: the expiry cutoff of its kind (null: the kind never
 * expires) and the memory a new one contradicts, which a ceiling spares (null: none).
 */
export interface RuleInputs {
  readonly cutoff: Date | null;
  readonly spared: string | null;
}

export type Condition =
  /** The memory is pinned. */
  | { readonly test: 'pinned' }
  /** Its kind never expires, or it was last useful at or after the kind's cutoff. */
  | { readonly test: 'useful since cutoff' }
  /** It is the memory the new one contradicts. */
  | { readonly test: 'spared' }
  /** A newer memory replaced it, and that memory still exists. */
  | { readonly test: 'superseded' }
  | { readonly test: 'not'; readonly of: Condition }
  | { readonly test: 'any'; readonly of: readonly Condition[] }
  | { readonly test: 'all'; readonly of: readonly Condition[] };

export const pinned: Condition = { test: 'pinned' };
export const usefulSinceCutoff: Condition = { test: 'useful since cutoff' };
export const spared: Condition = { test: 'spared' };
export const superseded: Condition = { test: 'superseded' };
export const not = (of: Condition): Condition => ({ test: 'not', of });
export const any = (...of: Condition[]): Condition => ({ test: 'any', of });
export const all = (...of: Condition[]): Condition => ({ test: 'all', of });

/** Whether a memory meets a condition. */
export function holds(condition: Condition, memory: MemoryFacts, inputs: RuleInputs): boolean {
  switch (condition.test) {
    case 'pinned':
      return memory.pinned;
    case 'useful since cutoff':
      return inputs.cutoff === null || memory.lastUsefulAt.getTime() >= inputs.cutoff.getTime();
    case 'spared':
      return inputs.spared !== null && memory.id === inputs.spared;
    case 'superseded':
      return isSuperseded(memory);
    case 'not':
      return !holds(condition.of, memory, inputs);
    case 'any':
      return condition.of.some((c) => holds(c, memory, inputs));
    case 'all':
      return condition.of.every((c) => holds(c, memory, inputs));
  }
}

const isSuperseded = (memory: MemoryFacts): boolean => memory.supersededBy !== undefined && memory.supersededBy !== null;

/** A field an order sorts by, ascending; `supersededFirst` puts the superseded memories before the current ones. */
export type OrderField = 'supersededFirst' | 'lastUsefulAt' | 'id';

function compareField(field: OrderField, a: MemoryFacts, b: MemoryFacts): number {
  switch (field) {
    case 'supersededFirst':
      return Number(isSuperseded(b)) - Number(isSuperseded(a));
    case 'lastUsefulAt':
      return a.lastUsefulAt.getTime() - b.lastUsefulAt.getTime();
    case 'id':
      return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  }
}

/** Sorts by the fields in turn, each ascending: the comparison an order of the rules makes. */
export function compareBy(order: readonly OrderField[]): (a: MemoryFacts, b: MemoryFacts) => number {
  return (a, b) => {
    for (const field of order) {
      const d = compareField(field, a, b);
      if (d !== 0) return d;
    }
    return 0;
  };
}
