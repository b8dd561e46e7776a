import { AsyncLocalStorage } from 'node:async_hooks';
import { inQueue, type Query, type SqlClient, type SqlEngine } from './sql-client.js';

/**
 * Driver codes that say the database could not be reached or would not take the session, rather
 * than that it refused a statement: the socket's, SQLSTATE class 08 (connection; pg-client marks
 * its own connection failures 08006), 57P0x (shut down, terminated), 53300 (too many
 * connections), 28P01 and 28000 (the login refused, once its secret was read again).
 */
const OUTAGE =
  /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE|08...|57P0[1-3]|53300|28P01|28000)$/;

/** Whether `error`, thrown by a statement, says the database was out of reach. */
export function isOutage(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && OUTAGE.test(code);
}

/** The request being answered, and the first outage one of its statements met. */
const requests = new AsyncLocalStorage<{ outage?: unknown }>();

/**
 * Runs `work` (one request) and says whether a statement of it met an outage, whatever `work` made
 * of the error: a tool turns it into a tool error, the page into a 500. The function then answers
 * the request as a cold container does when it cannot reach the database: 503 with Retry-After
 * (decision 0097).
 */
export async function watchingOutages<T>(work: () => Promise<T>): Promise<{ value: T; outage: unknown }> {
  const seen: { outage?: unknown } = {};
  const value = await requests.run(seen, work);
  return { value, outage: seen.outage };
}

/** A SqlClient that tells the request it serves (see {@link watchingOutages}) when a statement met an outage. */
export class OutageWatchingClient implements SqlClient {
  readonly engine: SqlEngine;
  readonly read?: SqlClient['read'];
  readonly ceiling?: SqlClient['ceiling'];
  readonly transaction?: SqlClient['transaction'];
  readonly queue?: SqlClient['queue'];

  constructor(private readonly inner: SqlClient) {
    this.engine = inner.engine;
    // Forwarded only where the inner client has them: asRead, asCeilingWrite and inTransaction tell the kinds apart.
    if (inner.read) this.read = (query) => this.watched(() => inner.read?.(query) ?? inner.query(query));
    if (inner.ceiling) this.ceiling = (query) => this.watched(() => inner.ceiling?.(query) ?? inner.query(query));
    if (inner.transaction) {
      this.transaction = (work) => this.watched(() => inner.transaction?.(work) ?? work(inner));
    }
    if (inner.queue)
      this.queue = <R>(locks: readonly Query[], query: Query) => this.watched(() => inQueue<R>(inner, locks, query));
  }

  private async watched<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const request = requests.getStore();
      if (request && request.outage === undefined && isOutage(error)) request.outage = error;
      throw error;
    }
  }

  query<R>(query: Query): Promise<R[]> {
    return this.watched(() => this.inner.query<R>(query));
  }

  exec(script: string): Promise<void> {
    return this.watched(() => this.inner.exec(script));
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
