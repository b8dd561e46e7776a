/** The SQL engines naaba runs on. Runtime SQL is the subset both accept; DDL is per engine. */
export type SqlEngine = 'postgres' | 'cockroach';

/**
 * The narrow driver surface the stores use. Every `query` is one round trip, so wrapping a
 * client is how round trips are counted at the driver.
 */
export interface SqlClient {
  readonly engine: SqlEngine;
  query<R>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs a multi-statement script without parameters (migrations only). */
  exec(script: string): Promise<void>;
  close(): Promise<void>;
  /**
   * Runs `work` on one connection while holding a lock named `key` that the same call on every
   * other connection waits for, so that writes sharing a key run one after another instead of
   * failing each other's serialization. Engines without such a lock leave it out (see `exclusively`).
   */
  exclusive?<T>(key: string, work: (session: SqlClient) => Promise<T>): Promise<T>;
}

/** `work` under the client's lock on `key` where it has one; as is where it runs one statement at a time or has none. */
export function exclusively<T>(db: SqlClient, key: string, work: (session: SqlClient) => Promise<T>): Promise<T> {
  return db.exclusive ? db.exclusive(key, work) : work(db);
}

/** Counts the round trips made through a client: the figure the budgets are stated in. */
export class CountingSqlClient implements SqlClient {
  roundTrips = 0;
  readonly engine: SqlEngine;

  constructor(private readonly inner: SqlClient) {
    this.engine = inner.engine;
  }

  query<R>(text: string, params?: readonly unknown[]): Promise<R[]> {
    this.roundTrips += 1;
    return this.inner.query<R>(text, params);
  }

  exec(script: string): Promise<void> {
    this.roundTrips += 1;
    return this.inner.exec(script);
  }

  exclusive<T>(key: string, work: (session: SqlClient) => Promise<T>): Promise<T> {
    // Taking and releasing the lock are a round trip each.
    if (this.inner.exclusive) this.roundTrips += 2;
    return exclusively(this.inner, key, (session) => work(new CountingSession(this, session)));
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** One locked connection of a counted client: its statements count towards the same figure. */
class CountingSession implements SqlClient {
  readonly engine: SqlEngine;

  constructor(
    private readonly counter: CountingSqlClient,
    private readonly inner: SqlClient,
  ) {
    this.engine = inner.engine;
  }

  query<R>(text: string, params?: readonly unknown[]): Promise<R[]> {
    this.counter.roundTrips += 1;
    return this.inner.query<R>(text, params);
  }

  exec(script: string): Promise<void> {
    this.counter.roundTrips += 1;
    return this.inner.exec(script);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
