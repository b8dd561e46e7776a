import { asCeilingWrite, asRead, inQueue, inTransaction, type Query, type SqlClient, type SqlEngine } from './sql-client.js';

/** The tracing a traced client needs: one subsegment per unit of work, with chosen annotations only. */
export interface SqlTracer {
  span<T>(name: string, annotations: Readonly<Record<string, string>>, work: () => Promise<T>): Promise<T>;
}

const WRITE = /\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_][a-z0-9_.]*)/gi;
const READ = /\bFROM\s+([a-z_][a-z0-9_.]*)/i;
const CALL = /^SELECT\s+([a-z_][a-z0-9_]*)\s*\(/i;

/**
 * A short label for a statement, made only of SQL keywords and identifiers: a named statement's
 * name (`curation/insert-memory`), else its first keyword and the tables it writes (or else reads).
 * Literals, comments and parameters are stripped first, so nothing the caller sent can reach a label.
 */
export function statementLabel(query: Query): string {
  if (query.statement) return query.statement.name;
  const bare = query.text
    .replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\$[a-z_]*\$[\s\S]*?\$[a-z_]*\$/gi, ' ')
    .trim();
  const verb = /^[a-z]+/i.exec(bare)?.[0]?.toUpperCase() ?? 'SQL';
  const writes = [
    ...new Set([...bare.matchAll(WRITE)].map((m) => `${m[1]?.split(/\s+/)[0]?.toUpperCase()} ${m[2]?.toLowerCase()}`)),
  ];
  if (writes.length > 0) return `${verb === 'WITH' ? 'WITH ' : ''}${writes.slice(0, 3).join(', ')}`;
  const target = READ.exec(bare)?.[1] ?? CALL.exec(bare)?.[1];
  return target ? `${verb} ${target.toLowerCase()}` : verb;
}

/**
 * A SqlClient that records one X-Ray subsegment per statement, named `SQL <label>`, annotated with
 * the label and the engine. Parameters, the statement's text and its rows never reach a trace.
 */
export class TracedSqlClient implements SqlClient {
  readonly engine: SqlEngine;
  readonly transaction?: SqlClient['transaction'];
  readonly queue?: SqlClient['queue'];

  constructor(
    private readonly inner: SqlClient,
    private readonly tracer: SqlTracer,
  ) {
    this.engine = inner.engine;
    // Forwarded only where the inner client has it: `inTransaction` tells the two kinds apart.
    if (inner.transaction) {
      this.transaction = <T>(work: (session: SqlClient) => Promise<T>) =>
        this.span('transaction', () => inTransaction(inner, (session) => work(new TracedSqlClient(session, tracer))));
    }
    if (inner.queue) {
      this.queue = <R>(locks: readonly Query[], query: Query) =>
        this.span(`queued ${statementLabel(query)}`, () => inQueue<R>(inner, locks, query));
    }
  }

  private span<T>(label: string, work: () => Promise<T>): Promise<T> {
    return this.tracer.span(`SQL ${label}`, { statement: label, engine: this.engine }, work);
  }

  query<R>(query: Query): Promise<R[]> {
    return this.span(statementLabel(query), () => this.inner.query<R>(query));
  }

  read<R>(query: Query): Promise<R[]> {
    return this.span(statementLabel(query), () => asRead<R>(this.inner, query));
  }

  ceiling<R>(query: Query): Promise<R[]> {
    return this.span(statementLabel(query), () => asCeilingWrite<R>(this.inner, query));
  }

  exec(script: string): Promise<void> {
    return this.span('script', () => this.inner.exec(script));
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** `client` with a subsegment per statement where there is a tracer; as it is where there is none. */
export function traceSql(client: SqlClient, tracer: SqlTracer | undefined): SqlClient {
  return tracer ? new TracedSqlClient(client, tracer) : client;
}
