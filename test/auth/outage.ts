import type { Query, SqlClient, SqlEngine } from '../../lambda/adapters/pg/sql-client.js';

/** What a driver's connection error looks like: a code, and a message that must never reach a log. */
export const OUTAGE_MESSAGE = 'connect ECONNREFUSED 10.0.0.7:26257 (password=sw0rdfish)';

/**
 * A database that can be taken down and hung on request, in front of a real one: `down` makes
 * every statement fail as a refused connection does, `hung` makes every statement wait forever.
 */
export class OutageSqlClient implements SqlClient {
  state: 'up' | 'down' | 'hung' = 'up';
  readonly engine: SqlEngine;

  constructor(private readonly inner: SqlClient) {
    this.engine = inner.engine;
  }

  private gate(): Promise<void> {
    if (this.state === 'down') return Promise.reject(Object.assign(new Error(OUTAGE_MESSAGE), { code: 'ECONNREFUSED' }));
    if (this.state === 'hung') return new Promise(() => undefined);
    return Promise.resolve();
  }

  async query<R>(query: Query): Promise<R[]> {
    await this.gate();
    return this.inner.query<R>(query);
  }

  async exec(script: string): Promise<void> {
    await this.gate();
    return this.inner.exec(script);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
