import type { Scope } from '../../../memory/model.js';
import { type RetryPolicy, withRetry } from '../retry.js';
import { asCeilingWrite, asRead, inQueue, type SqlClient, type SqlEngine } from '../sql-client.js';
import type { Statement } from '../sql/statement.js';
import { LOCK_PARTITION } from '../statements/curation/lock-partition.js';

/** The partition rows a write that a ceiling or the pin limit depends on takes: its kind's, and the user's when it pins. */
export interface WritePartition {
  readonly scope: Scope;
  readonly kinds: readonly string[];
  readonly pins: boolean;
}

/**
 * Runs the statements of `statements/` on a client, each retried after a serialization failure
 * within the retry policy's bounds (decision 0032), at the isolation its kind of work needs
 * (decision 0056). What every SQL store is built on.
 */
export class StatementRunner {
  constructor(
    readonly db: SqlClient,
    private readonly retry?: RetryPolicy,
  ) {}

  get engine(): SqlEngine {
    return this.db.engine;
  }

  /** A read, or a write that only removes or adds commutatively: READ COMMITTED where the engine has it. */
  read<I, R>(statement: Statement<I, R>, inputs: I): Promise<R[]> {
    const query = statement.query(inputs, this.db.engine);
    return withRetry(() => asRead<R>(this.db, query), this.retry);
  }

  /** A statement at the connection's default isolation (SERIALIZABLE): keys, OAuth, settings. */
  run<I, R>(statement: Statement<I, R>, inputs: I): Promise<R[]> {
    const query = statement.query(inputs, this.db.engine);
    return withRetry(() => this.db.query<R>(query), this.retry);
  }

  /**
   * A write the ceiling or the pin limit depends on (decision 0056). The first attempt runs alone
   * (REPEATABLE READ on PostgreSQL): no extra round trip when nothing contends, and it fails rather
   * than write on stale reads if another writer of the partition committed meanwhile. Later attempts
   * queue: one transaction that first creates or locks the partition's rows (the user's row first,
   * then each kind's), so that the statement then reads after the previous holder committed, sent
   * as one message where the client can (decision 0099): a contended remember is then 3 round
   * trips (neighbours, the first attempt, the queued one). The same on both engines: no advisory
   * locks, which CockroachDB does not have.
   */
  ceilingWrite<I, R>(partition: WritePartition, statement: Statement<I, R>, inputs: I): Promise<R[]> {
    const query = statement.query(inputs, this.db.engine);
    const { scope, kinds, pins } = partition;
    const locks = kinds.length === 0 ? [{ kind: null, pins }] : kinds.map((kind, i) => ({ kind, pins: pins && i === 0 }));
    let attempt = 0;
    return withRetry(() => {
      attempt += 1;
      if (attempt === 1) return asCeilingWrite<R>(this.db, query);
      return inQueue<R>(
        this.db,
        locks.map((lock) => LOCK_PARTITION.query({ scope, ...lock }, this.db.engine)),
        query,
      );
    }, this.retry);
  }
}
