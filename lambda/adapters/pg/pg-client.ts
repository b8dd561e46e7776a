import pg from 'pg';
import { inlined } from './inlined.js';
import type { Query, SqlClient, SqlEngine } from './sql-client.js';
import { ISOLATION_LEVEL } from './statements/schema/isolation-level.js';
import { SERVER_VERSION } from './statements/schema/server-version.js';
import { tlsConnection } from '../../config/database-tls.js';

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
  /**
   * Where the URL and CA come from (the secret), asked again (decision 0092): before each statement,
   * which a cached source answers at once until its max age; and `force`d when the server refused
   * the login, after which the statement is tried once more on the login read.
   */
  readonly source?: LoginSource | undefined;
}

/** The URL (with its password) and CA a client connects with. */
export interface Login {
  readonly url: string;
  readonly ca?: string | undefined;
}

/** Reads the login again; `force` when the server refused the one in use. */
export type LoginSource = (force: boolean) => Promise<Login>;

/**
 * The server refused the login itself (SQLSTATE 28P01 invalid_password, 28000
 * invalid_authorization_specification: a wrong password, a role that may not log in). Raised while
 * connecting, before any statement is sent, so trying again cannot run anything twice.
 */
export const isLoginRefused = (error: unknown) =>
  error instanceof pg.DatabaseError && (error.code === '28P01' || error.code === '28000');

const sameLogin = (a: Login, b: Login) => a.url === b.url && (a.ca ?? '') === (b.ca ?? '');

/** The isolation levels naaba's connections run at; which statement takes which: decision 0056. */
export type Isolation = 'serializable' | 'repeatable read' | 'read committed';

/**
 * The pools a client keeps, by what their connections are for: `default` (SERIALIZABLE),
 * `read` (READ COMMITTED), `ceiling` (a ceiling write's first attempt: REPEATABLE READ, and it
 * gives up at once on a row another writer holds rather than wait holding its own locks), `queue`
 * (queued writers' transactions, waiting on a partition's row for as long as it takes: apart from
 * `read`, so that reads never wait behind them).
 */
type LaneName = 'default' | 'read' | 'ceiling' | 'queue';

/** How long a ceiling write's first attempt waits on a locked row before it gives up and queues instead. */
export const CEILING_LOCK_TIMEOUT_MS = 100;

const LANES: Record<LaneName, { readonly isolation: Isolation; readonly lockTimeoutMs?: number }> = {
  default: { isolation: 'serializable' },
  read: { isolation: 'read committed' },
  ceiling: { isolation: 'repeatable read', lockTimeoutMs: CEILING_LOCK_TIMEOUT_MS },
  queue: { isolation: 'read committed' },
};

/**
 * Session settings each engine needs for the runtime SQL to be correct, sent in the startup
 * packet (`options=-c …`) so that a reconnect can never lose them:
 * - the connection's isolation level: SERIALIZABLE by default (keys, OAuth: their limits are one
 *   statement that counts and writes); on PostgreSQL the memory store's reads and commutative
 *   writes use READ COMMITTED connections and its ceiling writes REPEATABLE READ ones (decision
 *   0056). CockroachDB runs everything SERIALIZABLE, stated anyway in case a cluster defaults to
 *   READ COMMITTED;
 * - every statement has a server-side timeout;
 * - CockroachDB must allow one statement to insert and delete rows of the same table: the
 *   remember statement does both (an INSERT … ON CONFLICT plus the eviction DELETE), always on
 *   disjoint rows. CockroachDB refuses such statements by default because two modifications of
 *   the *same* row in one statement can corrupt an index (cockroach#70731);
 * - CockroachDB plans every statement for its parameters (`plan_cache_mode=force_custom_plan`):
 *   a generic plan could leave recall's vector index unused (docs/index-compatibility.md).
 */
export function sessionOptions(
  engine: SqlEngine,
  statementTimeoutMs: number,
  isolation: Isolation = 'serializable',
  lockTimeoutMs?: number,
): string {
  const level = engine === 'cockroach' ? 'serializable' : isolation;
  const common = [`statement_timeout=${statementTimeoutMs}`, `default_transaction_isolation=${level.replace(' ', '\\ ')}`];
  if (engine === 'postgres' && lockTimeoutMs !== undefined) common.push(`lock_timeout=${lockTimeoutMs}`);
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
    const result = await client.query<{ version: string }>(SERVER_VERSION.query({}, 'postgres').text);
    return /cockroach/i.test(result.rows[0]?.version ?? '') ? 'cockroach' : 'postgres';
  } finally {
    await client.end();
  }
}

/** The session runs at a weaker isolation than the ceilings need; refusing beats breaking them. */
export class IsolationError extends Error {
  override name = 'IsolationError';
}

const levelOf = async (query: SqlClient['query']) =>
  ((await query<{ level: string }>(ISOLATION_LEVEL.query({}, 'postgres')))[0]?.level ?? 'unknown').toLowerCase();

/**
 * Start-up check: the URL's own `options` come after ours and may lower the isolation level.
 * Keys' and OAuth's limits need SERIALIZABLE connections, and the memory store's ceiling writes at
 * least REPEATABLE READ ones (decision 0056); this refuses a URL that lowers either instead of
 * letting concurrent writers overfill a kind.
 */
export async function requireSerializable(db: SqlClient): Promise<void> {
  const level = await levelOf((q) => db.query(q));
  const ceiling = db.ceiling ? await levelOf((q) => db.ceiling?.(q) ?? db.query(q)) : level;
  if (level === 'serializable' && (ceiling === 'repeatable read' || ceiling === 'serializable')) return;
  const weak = level === 'serializable' ? ceiling : level;
  throw new IsolationError(
    `the database session runs at ${weak.toUpperCase()} isolation, but naaba's ceilings and pin limit hold only under SERIALIZABLE (and REPEATABLE READ for its ceiling writes): remove default_transaction_isolation from the URL's options (naaba sets each connection's level itself), or set it to serializable`,
  );
}

/** Anything but an error the server reported (socket, TLS, timeout): the connection cannot be trusted again. */
const isConnectionError = (error: unknown) => !(error instanceof pg.DatabaseError);

/**
 * The connection is gone: a socket failure, or the server ending the session (57P01 terminated by
 * an administrator, 57P02 crash, 57P03 shutting down). Whatever ended one session has likely ended
 * the idle ones beside it (a leaked login's sessions terminated, a restart, a failover).
 */
const isLostConnection = (error: unknown) =>
  isConnectionError(error) || (error instanceof pg.DatabaseError && /^57P0[1-3]$/.test(error.code ?? ''));

/**
 * pg's own connection failures carry no code ('Connection terminated unexpectedly', its
 * timeouts): they are given SQLSTATE 08006 (connection_failure), so that whoever reads codes
 * tells a lost database from a refused statement (outage-watch.ts). The error is the same object.
 */
function withConnectionCode(error: unknown): unknown {
  if (error instanceof Error && isConnectionError(error) && typeof (error as { code?: unknown }).code !== 'string') {
    Object.assign(error, { code: '08006' });
  }
  return error;
}

/** Connections that already have an error listener of ours (see `Lane.listened`). */
const listened = new WeakSet<pg.PoolClient>();

/**
 * One pool of connections at one isolation level. After a long pause (a thawed container) the
 * whole pool is replaced before use, and a failed connect is tried once more: nothing was sent yet.
 */
class Lane {
  private pool: pg.Pool;
  private lastUsed = Date.now();

  constructor(
    private config: pg.PoolConfig,
    private readonly idleTimeoutMs: number,
  ) {
    this.pool = Lane.makePool(config);
  }

  /** Another login: new connections use it; the old pool closes once its connections are given back. */
  reconfigure(config: pg.PoolConfig): void {
    const old = this.pool;
    this.config = config;
    this.pool = Lane.makePool(config);
    void old.end().catch(() => undefined);
  }

  private static makePool(config: pg.PoolConfig): pg.Pool {
    const pool = new pg.Pool(config);
    // An idle client that the server drops must not crash the process.
    pool.on('error', () => undefined);
    return pool;
  }

  async checkout(): Promise<pg.PoolClient> {
    return Lane.listened(await this.connected());
  }

  /**
   * A connection that loses its socket while checked out but between statements emits 'error'
   * with no statement to fail; unheard, that is an uncaught exception that ends the process. The
   * statement in flight, if any, still fails with the error, and the connection is dropped on release.
   */
  private static listened(client: pg.PoolClient): pg.PoolClient {
    if (!listened.has(client)) {
      client.on('error', () => undefined);
      listened.add(client);
    }
    return client;
  }

  private async connected(): Promise<pg.PoolClient> {
    const now = Date.now();
    if (now - this.lastUsed > this.idleTimeoutMs && this.pool.totalCount === this.pool.idleCount) {
      const stale = this.pool;
      this.pool = Lane.makePool(this.config);
      void stale.end().catch(() => undefined);
    }
    this.lastUsed = now;
    try {
      return await this.pool.connect();
    } catch (error) {
      // The same password again would be refused again: that is the client's to renew.
      if (isLoginRefused(error)) throw error;
      return this.pool.connect().catch((again: unknown) => {
        throw withConnectionCode(again);
      });
    }
  }

  /** Gives a connection back; one that failed below SQL is dropped, its state unknown. */
  release(client: pg.PoolClient, error?: unknown): void {
    client.release(error !== undefined && isLostConnection(error) ? (error as Error) : undefined);
    this.lastUsed = Date.now();
  }

  async run<R extends pg.QueryResultRow>(query: Query | string): Promise<R[]> {
    const client = await this.checkout();
    try {
      const result =
        typeof query === 'string' ? await client.query<R>(query) : await client.query<R>(query.text, [...query.values]);
      this.release(client);
      return result.rows;
    } catch (error) {
      this.release(client, error);
      throw withConnectionCode(error);
    }
  }

  /** Several statements in one message: the rows of each, in order (one transaction, implicit). */
  async runMessage(text: string): Promise<pg.QueryResultRow[][]> {
    const client = await this.checkout();
    try {
      const result = (await client.query(text)) as unknown as pg.QueryResult | pg.QueryResult[];
      this.release(client);
      return (Array.isArray(result) ? result : [result]).map((r) => r.rows);
    } catch (error) {
      this.release(client, error);
      throw withConnectionCode(error);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** One connection inside a transaction: every statement on it, whatever it asks for. */
function sessionOn(engine: SqlEngine, client: pg.PoolClient): SqlClient {
  const query = async <R>(q: Query) => (await client.query(q.text, [...q.values])).rows as R[];
  return {
    engine,
    query,
    read: query,
    ceiling: query,
    exec: async (script) => {
      await client.query(script);
    },
    close: async () => undefined,
  };
}

/**
 * A small `pg` client to PostgreSQL or CockroachDB, shaped for a Lambda container: one pool per
 * isolation level in use, each made on first use (decision 0056).
 */
export class PgSqlClient implements SqlClient {
  private readonly lanes = new Map<LaneName, Lane>();

  private constructor(
    readonly engine: SqlEngine,
    /** The pool settings apart from the login and its TLS. */
    private readonly pool: pg.PoolConfig,
    private login: Login,
    private readonly statementTimeoutMs: number,
    private readonly idleTimeoutMs: number,
    private readonly source: LoginSource | undefined,
  ) {}

  /** Refuses a URL without verified TLS to a host that is not loopback before connecting (`tlsConnection`). */
  static async connect(options: PgClientOptions): Promise<PgSqlClient> {
    const connectionTimeoutMillis = options.connectionTimeoutMs ?? 5_000;
    const tls = tlsConnection(options.url, options.ca);
    const engine = options.engine ?? (await probeEngine(tls, connectionTimeoutMillis));
    const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
    const pool: pg.PoolConfig = {
      max: options.maxConnections,
      idleTimeoutMillis: idleTimeoutMs,
      connectionTimeoutMillis,
      maxLifetimeSeconds: options.maxLifetimeSeconds ?? 1_800,
      // Notice a peer that vanished instead of waiting on a dead socket.
      keepAlive: true,
      // A client-side backstop past the server's own statement timeout.
      query_timeout: options.statementTimeoutMs + 5_000,
    };
    const login = { url: options.url, ca: options.ca };
    const client = new PgSqlClient(engine, pool, login, options.statementTimeoutMs, idleTimeoutMs, options.source);
    try {
      await requireSerializable(client);
    } catch (error) {
      await client.close();
      throw error;
    }
    return client;
  }

  /** One lane's pool settings: the login's TLS connection with the lane's session options. */
  private laneConfig(name: LaneName): pg.PoolConfig {
    const { isolation, lockTimeoutMs } = LANES[name];
    const options = sessionOptions(this.engine, this.statementTimeoutMs, isolation, lockTimeoutMs);
    const tls = tlsConnection(this.login.url, this.login.ca);
    return { ...tls, ...this.pool, ...withSessionOptions(tls.connectionString, options) };
  }

  /** Moves every lane to `login`: new connections use it, the old pools close as their connections come back. */
  private relogin(login: Login): void {
    tlsConnection(login.url, login.ca); // refused (verify-full off loopback) before anything moves
    this.login = login;
    this.renewPools();
  }

  /**
   * `work`, with the login the source holds now; when the server refuses it, the source is read
   * again (forced) and, if it holds another login, `work` is tried once more with that one. Only
   * a refused login is retried: it happens while connecting, before any statement is sent.
   */
  private async withLogin<T>(work: () => Promise<T>): Promise<T> {
    if (this.source) {
      const current = await this.source(false);
      if (!sameLogin(current, this.login)) this.relogin(current);
    }
    const used = this.login;
    try {
      return await this.droppingLost(work);
    } catch (error) {
      if (!this.source || !isLoginRefused(error)) throw error;
      const next = await this.source(true);
      if (sameLogin(next, used)) throw error;
      if (!sameLogin(next, this.login)) this.relogin(next);
      return this.droppingLost(work);
    }
  }

  /**
   * `work`; when it loses its connection, every pool is replaced, so that the idle connections the
   * same event ended fail no later call: a container pays one failed call for it, not one per
   * pooled connection. The statement itself is not retried: whether it ran is unknown.
   */
  private async droppingLost<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isLostConnection(error)) this.renewPools();
      throw error;
    }
  }

  /** New pools for every lane, same login; the old ones close as their connections come back. */
  private renewPools(): void {
    for (const [name, lane] of this.lanes) lane.reconfigure(this.laneConfig(name));
  }

  /** A pool for one purpose; CockroachDB runs every statement SERIALIZABLE, so there all but the queue share one. */
  private lane(wanted: LaneName): Lane {
    const name = this.engine === 'cockroach' && wanted !== 'queue' ? 'default' : wanted;
    let lane = this.lanes.get(name);
    if (!lane) {
      lane = new Lane(this.laneConfig(name), this.idleTimeoutMs);
      this.lanes.set(name, lane);
    }
    return lane;
  }

  query<R>(query: Query): Promise<R[]> {
    return this.withLogin(() => this.lane('default').run(query) as Promise<R[]>);
  }

  read<R>(query: Query): Promise<R[]> {
    return this.withLogin(() => this.lane('read').run(query) as Promise<R[]>);
  }

  ceiling<R>(query: Query): Promise<R[]> {
    return this.withLogin(() => this.lane('ceiling').run(query) as Promise<R[]>);
  }

  /**
   * One explicit transaction on one connection: READ COMMITTED on PostgreSQL, SERIALIZABLE on
   * CockroachDB. A failed COMMIT (CockroachDB's 40001 at commit) rejects like any statement, so
   * the caller's retry runs `work` again; a failed ROLLBACK drops the connection.
   */
  async transaction<T>(work: (session: SqlClient) => Promise<T>): Promise<T> {
    const lane = this.lane('queue');
    const client = await this.withLogin(() => lane.checkout());
    let broken: unknown;
    try {
      await client.query(this.engine === 'postgres' ? 'BEGIN ISOLATION LEVEL READ COMMITTED' : 'BEGIN');
      try {
        const result = await work(sessionOn(this.engine, client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollback: unknown) => {
          broken = rollback;
        });
        throw error;
      }
    } catch (error) {
      broken ??= isLostConnection(error) ? error : undefined;
      if (isLostConnection(error)) this.renewPools();
      throw withConnectionCode(error);
    } finally {
      lane.release(client, broken);
    }
  }

  /**
   * A queued write in one round trip (decision 0099): the locks and the statement as one message,
   * which PostgreSQL and CockroachDB run as one implicit transaction — on PostgreSQL at the queue
   * lane's READ COMMITTED, so that each statement reads what committed before its locks were
   * granted. A failure anywhere rolls the whole message back, like any statement.
   */
  async queue<R>(locks: readonly Query[], query: Query): Promise<R[]> {
    const text = [...locks, query].map(inlined).join(';\n');
    const results = await this.withLogin(() => this.lane('queue').runMessage(text));
    return (results.at(-1) ?? []) as R[];
  }

  async exec(script: string): Promise<void> {
    await this.lane('default').run(script);
  }

  async close(): Promise<void> {
    await Promise.all([...this.lanes.values()].map((lane) => lane.close()));
    this.lanes.clear();
  }
}
