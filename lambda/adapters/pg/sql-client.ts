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

  close(): Promise<void> {
    return this.inner.close();
  }
}
