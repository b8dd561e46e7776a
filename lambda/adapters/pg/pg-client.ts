import pg from 'pg';
import type { SqlClient, SqlEngine } from './sql-client.js';

export interface PgClientOptions {
  readonly url: string;
  /** Connections per process: one or two fit a Lambda container. */
  readonly maxConnections: number;
  readonly statementTimeoutMs: number;
  /** Known engine; probed with `SELECT version()` when absent. */
  readonly engine?: SqlEngine;
}

/**
 * Session settings each engine needs for the runtime SQL to be correct:
 * - PostgreSQL runs every statement SERIALIZABLE, so ceilings hold under concurrent writers;
 * - CockroachDB is SERIALIZABLE already, and must allow one statement to insert and evict
 *   rows of the same table (the remember statement does both, on disjoint rows).
 */
function sessionOptions(engine: SqlEngine, statementTimeoutMs: number): string {
  const common = `-c statement_timeout=${statementTimeoutMs}`;
  return engine === 'cockroach'
    ? `${common} -c enable_multiple_modifications_of_table=true`
    : `${common} -c default_transaction_isolation=serializable`;
}

/** Tells CockroachDB from PostgreSQL by what the server says it is. */
export async function probeEngine(url: string): Promise<SqlEngine> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ version: string }>('SELECT version() AS version');
    return /cockroach/i.test(result.rows[0]?.version ?? '') ? 'cockroach' : 'postgres';
  } finally {
    await client.end();
  }
}

/** A small `pg` pool to PostgreSQL or CockroachDB (TLS as the URL's `sslmode` says). */
export class PgSqlClient implements SqlClient {
  private constructor(
    readonly engine: SqlEngine,
    private readonly pool: pg.Pool,
  ) {}

  static async connect(options: PgClientOptions): Promise<PgSqlClient> {
    const engine = options.engine ?? (await probeEngine(options.url));
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxConnections,
      idleTimeoutMillis: 60_000,
      connectionTimeoutMillis: 5_000,
      options: sessionOptions(engine, options.statementTimeoutMs),
    });
    // An idle client that the server drops must not crash the process.
    pool.on('error', () => undefined);
    return new PgSqlClient(engine, pool);
  }

  async query<R>(text: string, params?: readonly unknown[]): Promise<R[]> {
    const result = await this.pool.query(text, params ? [...params] : undefined);
    return result.rows as R[];
  }

  async exec(script: string): Promise<void> {
    await this.pool.query(script);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
