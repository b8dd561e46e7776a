import type { SqlClient, SqlEngine } from '../sql-client.js';
import { type Params, params, type Query, type SqlFragment, toQuery } from './template.js';

/**
 * What a statement's plan must show on an engine, on top of "no full scan" (which every statement
 * gets unless waived). `npm run verify:plan` runs EXPLAIN on each statement and holds it to this
 * (bin/plan/rules.ts, docs/index-compatibility.md).
 */
export interface PlanExpectations {
  /** An ANN read: CockroachDB must plan `vector search` on the vector index; SQL must carry only prefix equality. */
  readonly vectorSearch?: boolean;
  /** Inserts or deletes memories: CockroachDB must plan `vector mutation search`. */
  readonly vectorMutation?: boolean;
  /** A lexical read: the postings of the query's terms, read by their key under the (region, user, kind) prefix. */
  readonly lexicalSearch?: boolean;
  /** Recall's read of what follows each hit in its origin: both engines must use `memories_origin_seq` (decisions 0081, 0082). */
  readonly followingRead?: boolean;
  /**
   * PostgreSQL: the vector arm reads partitions by their cells (decision 0083): `memory_cells` by
   * its key, and `memories_cell` with the cell (or its absence) in every index condition.
   */
  readonly cellsRead?: boolean;
  /** CockroachDB: the index (or every index) the plan must read, as `table@index` (decision 0098's VERIFY items). */
  readonly cockroachIndex?: string | readonly string[];
  /** CockroachDB: no index join, the rows read come whole from the span read (decision 0098). */
  readonly noIndexJoin?: boolean;
  /** PostgreSQL: the index (or every index) the per-user part of the plan must go through. */
  readonly postgresIndex?: string | readonly string[];
  /** A full scan is the point (an admin listing, a walk of every row, a read of a few settings). */
  readonly fullScanAllowed?: boolean;
  /**
   * A region-wide batch (sweeper): on PostgreSQL a LIMIT fed directly by an index scan of a per-user
   * table, nothing blocking in between and no sequential scan, so that a batch reads about its own
   * size however large the region is (decision 0098).
   */
  readonly regionBatch?: boolean;
}

/** A statement as a client sends it, with what its plan must show on the engine it is sent to. */
export interface StatementQuery extends Query {
  readonly statement: { readonly name: string; readonly expects: () => PlanExpectations };
}

/**
 * One SQL statement: its name (`<use case>/<what it does>`, the file it lives in), the plan it
 * expects, and its text for given inputs. `R` is the row it answers.
 */
export interface Statement<I, R> {
  readonly name: string;
  /** The statement for these inputs on this engine, ready to send. */
  query(inputs: I, engine: SqlEngine): StatementQuery;
  /** @internal The row type, for `run`; never set. */
  readonly row?: R;
}

export interface StatementDefinition<I> {
  readonly name: string;
  /** What the plan must show: the same for every call, or depending on the inputs and the engine. */
  readonly expects: PlanExpectations | ((inputs: I, engine: SqlEngine) => PlanExpectations);
  /** The text, each input a named parameter (`p.scope.region`); `inputs` for what shapes the text (how many kinds). */
  readonly render: (p: Params<I>, inputs: I, engine: SqlEngine) => SqlFragment;
}

/** Defines a statement of inputs `I` answering rows `R`. */
export function statement<I extends object, R = Record<string, unknown>>(definition: StatementDefinition<I>): Statement<I, R> {
  const { name, expects, render } = definition;
  return {
    name,
    query(inputs, engine) {
      const plan = () => (typeof expects === 'function' ? expects(inputs, engine) : expects);
      return toQuery(render(params(inputs), inputs, engine), { name, expects: plan });
    },
  };
}

/** Sends one statement on a client as it is, at the client's default isolation, without retries (start-up checks, migrations). */
export function send<I, R>(db: SqlClient, statement: Statement<I, R>, inputs: I): Promise<R[]> {
  return db.query<R>(statement.query(inputs, db.engine));
}
