import type { Query, SqlClient, SqlEngine } from '../../lambda/adapters/pg/sql-client.js';

/** A plan reduced to what the rules look at, plus a printable rendering. */
export interface Plan {
  readonly engine: SqlEngine;
  /** One line per plan node (PostgreSQL) or per EXPLAIN output line (CockroachDB). */
  readonly lines: readonly string[];
  /** PostgreSQL: tables read by a sequential scan. */
  readonly seqScans: readonly string[];
  /** PostgreSQL: indexes any node uses. */
  readonly indexes: readonly string[];
}

interface PgNode {
  'Node Type'?: string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  /** A Result node's gate, evaluated before its input is read at all. */
  'One-Time Filter'?: string;
  Alias?: string;
  Plans?: PgNode[];
}

function walk(node: PgNode, depth: number, visit: (node: PgNode, depth: number) => void): void {
  visit(node, depth);
  for (const child of node.Plans ?? []) walk(child, depth + 1, visit);
}

async function explainPostgres(db: SqlClient, query: Query): Promise<Plan> {
  const [row] = await db.query<Record<string, unknown>>({ text: `EXPLAIN (FORMAT JSON) ${query.text}`, values: query.values });
  const raw = row ? Object.values(row)[0] : undefined;
  const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PgNode }[];
  const lines: string[] = [];
  const seqScans: string[] = [];
  const indexes = new Set<string>();
  for (const top of parsed) {
    walk(top.Plan, 0, (node, depth) => {
      const type = node['Node Type'] ?? '?';
      const index = node['Index Name'];
      const relation = node['Relation Name'];
      if (index) indexes.add(index);
      if (type === 'Seq Scan' && relation) seqScans.push(relation);
      const cond = node['Index Cond'];
      const filter = node.Filter;
      const gate = node['One-Time Filter'];
      lines.push(
        `${'  '.repeat(depth)}${type}${index ? ` using ${index}` : ''}${relation ? ` on ${relation}` : ''}${cond ? ` by ${cond}` : ''}${filter ? ` filter ${filter}` : ''}${gate ? ` if ${gate}` : ''}`,
      );
    });
  }
  return { engine: 'postgres', lines, seqScans, indexes: [...indexes] };
}

async function explainCockroach(db: SqlClient, query: Query): Promise<Plan> {
  const rows = await db.query<Record<string, unknown>>({ text: `EXPLAIN ${query.text}`, values: query.values });
  const lines = rows.map((r) => String(Object.values(r)[0] ?? ''));
  return { engine: 'cockroach', lines, seqScans: [], indexes: [] };
}

/** EXPLAIN (never ANALYZE: nothing runs) of one statement with its parameters, on the client's engine. */
export function explain(db: SqlClient, query: Query): Promise<Plan> {
  return db.engine === 'cockroach' ? explainCockroach(db, query) : explainPostgres(db, query);
}
