/**
 * The operations a rule of counts and flags is written in (the pin limit, the ceiling's excess, the
 * relevance floor, the followers' share, the `expires` flag). A rule is a function of a `Formula`:
 * {@link VALUES} evaluates it for the service and the in-memory store, and the pg store's SQL
 * renderer (lambda/adapters/pg/sql/policy.ts, `SQL`) writes the same function as an expression, so
 * a statement carries the rule rather than a copy of it.
 */
export interface Formula<N, B> {
  /** A constant the rule itself holds (0, 1), never an input. */
  readonly constant: (n: number) => N;
  readonly plus: (a: N, b: N) => N;
  readonly minus: (a: N, b: N) => N;
  readonly times: (a: N, b: N) => N;
  /** The largest integer not above `a`. */
  readonly floor: (a: N) => N;
  readonly greatest: (a: N, b: N) => N;
  readonly equals: (a: N, b: N) => B;
  readonly below: (a: N, b: N) => B;
  readonly atMost: (a: N, b: N) => B;
  readonly truth: (b: boolean) => B;
  readonly not: (a: B) => B;
  readonly and: (...of: B[]) => B;
  readonly or: (...of: B[]) => B;
  /** `then` when `test` holds, `otherwise` when not. */
  readonly when: (test: B, then: B, otherwise: B) => B;
}

/** The rules over numbers and booleans. */
export const VALUES: Formula<number, boolean> = {
  constant: (n) => n,
  plus: (a, b) => a + b,
  minus: (a, b) => a - b,
  times: (a, b) => a * b,
  floor: Math.floor,
  greatest: Math.max,
  equals: (a, b) => a === b,
  below: (a, b) => a < b,
  atMost: (a, b) => a <= b,
  truth: (b) => b,
  not: (a) => !a,
  and: (...of) => of.every(Boolean),
  or: (...of) => of.some(Boolean),
  when: (test, then, otherwise) => (test ? then : otherwise),
};
