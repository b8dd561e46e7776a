import pg from 'pg';
import { StoreBusyError } from '../../memory/errors.js';
import type { SqlClient, SqlEngine } from './sql-client.js';
import { tlsConnection } from './tls.js';

export interface PgClientOptions {
  readonly url: string;
  /**
   * PEM certificates of the authority that signed the server's certificate, for a cluster that is
   * not publicly trusted; without it the system roots are used. Needs `sslmode=verify-full`.
   */
  readonly ca?: string | undefined;
  /** Connections per process: one or two fit a Lambda container (it serves one request at a time). */
  readonly maxConnections: number;
  readonly statementTimeoutMs: number;
  /** Known engine; probed with `SELECT version()` when absent (one extra connection at cold start). */
  readonly engine?: SqlEngine | undefined;
  /** How long to wait for a connection (TCP + TLS + startup); default 5 s. */
  readonly connectionTimeoutMs?: number;
  /**
   * A connection unused for longer is not reused; default 60 s. Checked against the wall clock
   * too, because a frozen Lambda container runs no timers and may wake up holding sockets that a
   * load balancer or NAT gateway dropped long ago.
   */
  readonly idleTimeoutMs?: number;
  /** Connections are recycled after this age (CockroachDB's serverless guidance: 30 min). */
  readonly maxLifetimeSeconds?: number;
}

/**
 * Session settings each engine needs for the runtime SQL to be correct, sent in the startup
 * packet (`options=-c …`) so that a reconnect can never lose them:
 * - both run SERIALIZABLE, so ceilings hold under concurrent writers (CockroachDB's default,
 *   stated anyway in case a cluster defaults to READ COMMITTED);
 * - every statement has a server-side timeout;
 * - CockroachDB must allow one statement to insert and delete rows of the same table: the
 *   remember statement does both (an INSERT … ON CONFLICT plus the eviction DELETE), always on
 *   disjoint rows. CockroachDB refuses such statements by default because two modifications of
 *   the *same* row in one statement can corrupt an index (cockroach#70731);
 * - CockroachDB plans every statement for its parameters (`plan_cache_mode=force_custom_plan`):
 *   a generic plan could leave recall's vector or inverted index unused, since the inverted
 *   index needs the tsquery to be a constant when the plan is made (docs/index-compatibility.md).
 */
export function sessionOptions(engine: SqlEngine, statementTimeoutMs: number): string {
  const common = [`statement_timeout=${statementTimeoutMs}`, 'default_transaction_isolation=serializable'];
  const engineSpecific =
    engine === 'cockroach' ? ['enable_multiple_modifications_of_table=on', 'plan_cache_mode=force_custom_plan'] : [];
  return [...common, ...engineSpecific, 'application_name=naaba'].map((o) => `-c ${o}`).join(' ');
}

/**
 * Puts the session options into the URL's own `options` parameter (pg lets URL parameters win
 * over configuration, so they must live in the same place). The URL's options come last, so an
 * operator can still override a setting on purpose. TLS is `tlsConnection`'s business.
 */
export function withSessionOptions(url: string, options: string): { connectionString: string; options?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { connectionString: url, options };
  }
  const own = parsed.searchParams.get('options');
  parsed.searchParams.set('options', own ? `${options} ${own}` : options);
  return { connectionString: parsed.toString() };
}

/** Tells CockroachDB from PostgreSQL by what the server says it is. */
export async function probeEngine(connection: string | pg.ClientConfig, connectionTimeoutMillis = 5_000): Promise<SqlEngine> {
  const given = typeof connection === 'string' ? { connectionString: connection } : connection;
  const client = new pg.Client({ ...given, connectionTimeoutMillis });
  await client.connect();
  try {
    const result = await client.query<{ version: string }>('SELECT version() AS version');
    return /cockroach/i.test(result.rows[0]?.version ?? '') ? 'cockroach' : 'postgres';
  } finally {
    await client.end();
  }
}

/** The session runs at a weaker isolation than the ceilings need; refusing beats breaking them. */
export class IsolationError extends Error {
  override name = 'IsolationError';
}

/**
 * Start-up check: ceilings and the pin limit are counted and written in one statement, which is
 * exact only under SERIALIZABLE (decision 0046). The URL's own `options` come after ours and may
 * lower it; this refuses such a URL instead of letting concurrent writers overfill a kind.
 */
export async function requireSerializable(db: SqlClient): Promise<void> {
  const [row] = await db.query<{ level: string }>("SELECT current_setting('transaction_isolation') AS level");
  const level = (row?.level ?? 'unknown').toLowerCase();
  if (level === 'serializable') return;
  throw new IsolationError(
    `the database session runs at ${level.toUpperCase()} isolation, but naaba's ceilings and pin limit hold only under SERIALIZABLE: remove default_transaction_isolation from the URL's options (naaba sets serializable itself), or set it to serializable`,
  );
}

/** Anything but an error the server reported (socket, TLS, timeout): the connection cannot be trusted again. */
const isConnectionError = (error: unknown) => !(error instanceof pg.DatabaseError);

/** A small `pg` pool to PostgreSQL or CockroachDB, shaped for a Lambda container. */
export class PgSqlClient implements SqlClient {
  private pool: pg.Pool;
  private lastUsed = Date.now();

  private constructor(
    readonly engine: SqlEngine,
    private readonly config: pg.PoolConfig,
    private readonly idleTimeoutMs: number,
  ) {
    this.pool = PgSqlClient.makePool(config);
  }

  private static makePool(config: pg.PoolConfig): pg.Pool {
    const pool = new pg.Pool(config);
    // An idle client that the server drops must not crash the process.
    pool.on('error', () => undefined);
    return pool;
  }

  /** Refuses a URL without verified TLS to a host that is not loopback before connecting (`tlsConnection`). */
  static async connect(options: PgClientOptions): Promise<PgSqlClient> {
    const connectionTimeoutMillis = options.connectionTimeoutMs ?? 5_000;
    const tls = tlsConnection(options.url, options.ca);
    const engine = options.engine ?? (await probeEngine(tls, connectionTimeoutMillis));
    const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
    const config: pg.PoolConfig = {
      ...tls,
      ...withSessionOptions(tls.connectionString, sessionOptions(engine, options.statementTimeoutMs)),
      max: options.maxConnections,
      idleTimeoutMillis: idleTimeoutMs,
      connectionTimeoutMillis,
      maxLifetimeSeconds: options.maxLifetimeSeconds ?? 1_800,
      // Notice a peer that vanished instead of waiting on a dead socket.
      keepAlive: true,
      // A client-side backstop past the server's own statement timeout.
      query_timeout: options.statementTimeoutMs + 5_000,
    };
    const client = new PgSqlClient(engine, config, idleTimeoutMs);
    try {
      await requireSerializable(client);
    } catch (error) {
      await client.close();
      throw error;
    }
    return client;
  }

  /**
   * A connection for one statement. After a long pause (a thawed container) the whole pool is
   * replaced before use, and a failed connect is tried once more: nothing was sent yet.
   */
  private async checkout(): Promise<pg.PoolClient> {
    const now = Date.now();
    if (now - this.lastUsed > this.idleTimeoutMs && this.pool.totalCount === this.pool.idleCount) {
      const stale = this.pool;
      this.pool = PgSqlClient.makePool(this.config);
      void stale.end().catch(() => undefined);
    }
    this.lastUsed = now;
    try {
      return await this.pool.connect();
    } catch {
      return this.pool.connect();
    }
  }

  private async run<R extends pg.QueryResultRow>(text: string, params?: readonly unknown[]): Promise<R[]> {
    const client = await this.checkout();
    try {
      const result = await client.query<R>(text, params ? [...params] : undefined);
      client.release();
      return result.rows;
    } catch (error) {
      // A statement that failed below SQL leaves the connection in an unknown state: drop it.
      client.release(isConnectionError(error) ? (error as Error) : undefined);
      throw error;
    } finally {
      this.lastUsed = Date.now();
    }
  }

  query<R>(text: string, params?: readonly unknown[]): Promise<R[]> {
    return this.run(text, params) as Promise<R[]>;
  }

  /**
   * PostgreSQL: a session advisory lock on a 64-bit hash of `key`, taken in its own statement so
   * that the statements of `work` take their snapshots after the previous holder committed, and
   * released before the connection goes back to the pool. A connection whose release failed is
   * dropped: the server frees a session's locks when it ends, so no lock outlives its holder.
   * A wait longer than the statement timeout is the busy error (nothing was changed). CockroachDB
   * has no advisory locks; there `work` runs as is, and CockroachDB retries contended
   * single-statement transactions itself (decision 0046).
   */
  async exclusive<T>(key: string, work: (session: SqlClient) => Promise<T>): Promise<T> {
    if (this.engine !== 'postgres') return work(this);
    const client = await this.checkout();
    const session: SqlClient = {
      engine: this.engine,
      query: async <R>(text: string, params?: readonly unknown[]) =>
        (await client.query(text, params ? [...params] : undefined)).rows as R[],
      exec: async (script) => {
        await client.query(script);
      },
      close: async () => undefined,
    };
    let broken: Error | undefined;
    try {
      try {
        await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [key]);
      } catch (error) {
        if ((error as { code?: unknown }).code === '57014') throw new StoreBusyError(1, { cause: error });
        throw error;
      }
      try {
        return await work(session);
      } finally {
        try {
          await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
        } catch (error) {
          broken = error as Error;
        }
      }
    } catch (error) {
      // A lock wait cut by the statement timeout leaves a healthy session (nothing was locked).
      if (isConnectionError(error) && !(error instanceof StoreBusyError)) broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
      this.lastUsed = Date.now();
    }
  }

  async exec(script: string): Promise<void> {
    await this.run(script);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
