import type { SqlEngine } from '../../config/database.js';
import type { Query } from './sql/template.js';

export type { Query } from './sql/template.js';
export type { SqlEngine } from '../../config/database.js';

/**
 * The narrow driver surface the stores use. Every `query` is one round trip, so wrapping a
 * client is how round trips are counted at the driver. A statement runs as its own transaction,
 * at the client's default isolation unless it goes through `read` or `ceiling` (decision 0056).
 */
export interface SqlClient {
  readonly engine: SqlEngine;
  query<R>(query: Query): Promise<R[]>;
  /**
   * A read, or a write whose changes commute with any other (a decrement, a touch): on PostgreSQL
   * at READ COMMITTED, so it takes no predicate locks that would abort other users' calls.
   * Clients without isolation levels to choose from leave it out (see `asRead`).
   */
  read?<R>(query: Query): Promise<R[]>;
  /**
   * A write a ceiling or the pin limit depends on, which writes its partition's row: on PostgreSQL
   * at REPEATABLE READ, where a concurrent writer of that row makes it fail (40001) instead of
   * writing on what it read, without SERIALIZABLE's predicate locks (see `asCeilingWrite`).
   */
  ceiling?<R>(query: Query): Promise<R[]>;
  /**
   * Runs `work` as one explicit transaction on one connection — on PostgreSQL at READ COMMITTED,
   * so each statement sees what committed before it; on CockroachDB at SERIALIZABLE — committed
   * when `work` resolves, rolled back when it throws. How writers of one partition queue: the
   * first statement locks the partition's rows (see `inTransaction`).
   */
  transaction?<T>(work: (session: SqlClient) => Promise<T>): Promise<T>;
  /**
   * A queued write in one round trip (decision 0099): `locks`, then `query`, as one transaction
   * sent as one message — on PostgreSQL at READ COMMITTED, so `query` reads after the locks are
   * granted; on CockroachDB SERIALIZABLE. Returns `query`'s rows. Clients that cannot send several
   * statements in one message leave it out (see `inQueue`).
   */
  queue?<R>(locks: readonly Query[], query: Query): Promise<R[]>;
  /** Runs a multi-statement script without parameters (migrations only). */
  exec(script: string): Promise<void>;
  close(): Promise<void>;
}

/** A read (READ COMMITTED where the client can choose), else as any statement. */
export const asRead = <R>(db: SqlClient, query: Query): Promise<R[]> => (db.read ? db.read<R>(query) : db.query<R>(query));

/** A ceiling write (REPEATABLE READ where the client can choose), else as any statement. */
export const asCeilingWrite = <R>(db: SqlClient, query: Query): Promise<R[]> =>
  db.ceiling ? db.ceiling<R>(query) : db.query<R>(query);

/** `work` in one transaction where the client has them; as is where it runs one statement at a time. */
export function inTransaction<T>(db: SqlClient, work: (session: SqlClient) => Promise<T>): Promise<T> {
  return db.transaction ? db.transaction(work) : work(db);
}

/** `locks` then `query` in one transaction: one round trip where the client can, else a transaction of its statements. */
export function inQueue<R>(db: SqlClient, locks: readonly Query[], query: Query): Promise<R[]> {
  return db.queue ? db.queue<R>(locks, query) : queuedInTransaction<R>(db, locks, query);
}

/** The same as a transaction of its statements: a round trip each, BEGIN and COMMIT included. */
function queuedInTransaction<R>(db: SqlClient, locks: readonly Query[], query: Query): Promise<R[]> {
  return inTransaction(db, async (session) => {
    for (const lock of locks) await session.query(lock);
    return session.query<R>(query);
  });
}

/** A client whose every statement counts toward `counter` (the outer client's figure). */
class CountedStatements implements SqlClient {
  readonly engine: SqlEngine;

  constructor(
    private readonly counter: { roundTrips: number },
    private readonly inner: SqlClient,
  ) {
    this.engine = inner.engine;
  }

  query<R>(query: Query): Promise<R[]> {
    this.counter.roundTrips += 1;
    return this.inner.query<R>(query);
  }

  read<R>(query: Query): Promise<R[]> {
    this.counter.roundTrips += 1;
    return asRead<R>(this.inner, query);
  }

  ceiling<R>(query: Query): Promise<R[]> {
    this.counter.roundTrips += 1;
    return asCeilingWrite<R>(this.inner, query);
  }

  transaction<T>(work: (session: SqlClient) => Promise<T>): Promise<T> {
    // BEGIN and COMMIT are a round trip each.
    if (this.inner.transaction) this.counter.roundTrips += 2;
    return inTransaction(this.inner, (session) => work(new CountedStatements(this.counter, session)));
  }

  queue<R>(locks: readonly Query[], query: Query): Promise<R[]> {
    // One message when the inner client sends it as one; else its transaction, counted as such.
    if (this.inner.queue) {
      this.counter.roundTrips += 1;
      return this.inner.queue<R>(locks, query);
    }
    return queuedInTransaction<R>(this, locks, query);
  }

  exec(script: string): Promise<void> {
    this.counter.roundTrips += 1;
    return this.inner.exec(script);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Counts the round trips made through a client: the figure the budgets are stated in. */
export class CountingSqlClient extends CountedStatements {
  private readonly tally: { roundTrips: number };

  constructor(inner: SqlClient) {
    const tally = { roundTrips: 0 };
    super(tally, inner);
    this.tally = tally;
  }

  get roundTrips(): number {
    return this.tally.roundTrips;
  }

  set roundTrips(n: number) {
    this.tally.roundTrips = n;
  }
}
