import type { SqlClient } from '../../lambda/adapters/pg/sql-client.js';
import { sql } from '../../lambda/adapters/pg/sql/template.js';
import type { PlanVerdict } from './verify.js';

/** One column of an index, as CockroachDB's `SHOW INDEXES` lists it. */
export interface IndexColumn {
  readonly index_name: string;
  readonly column_name: string;
  readonly seq_in_index: number;
  readonly storing: boolean;
  readonly implicit: boolean;
}

/** One constraint, as CockroachDB's `SHOW CONSTRAINTS` lists it. */
export interface Constraint {
  readonly constraint_name: string;
  readonly constraint_type: string;
  readonly details: string;
}

/**
 * What decision 0098 says a migrated CockroachDB `memories` looks like, from the cluster's own
 * listing: the primary key is the partition's (region, user_id, kind, id), the old key survives
 * as `memories_id` and as no other index, and `memory_links`' foreign keys still reference (region, id).
 */
export function schemaProblems(indexes: readonly IndexColumn[], links: readonly Constraint[]): string[] {
  const keyOf = (name: string) =>
    indexes
      .filter((c) => c.index_name === name && !c.storing && !c.implicit)
      .sort((a, b) => a.seq_in_index - b.seq_in_index)
      .map((c) => c.column_name)
      .join(', ');
  const problems: string[] = [];
  const primary = keyOf('memories_pkey');
  if (primary !== 'region, user_id, kind, id') problems.push(`memories_pkey is (${primary}), not (region, user_id, kind, id)`);
  const names = [...new Set(indexes.map((c) => c.index_name))];
  if (!names.includes('memories_id') || keyOf('memories_id') !== 'region, id') problems.push('no memories_id on (region, id)');
  for (const other of names.filter((n) => n !== 'memories_id' && n !== 'memories_pkey' && keyOf(n) === 'region, id')) {
    problems.push(`${other} is a second index on (region, id)`);
  }
  const foreign = links.filter((c) => c.constraint_type === 'FOREIGN KEY');
  if (foreign.length !== 2) problems.push(`memory_links has ${foreign.length} foreign keys, not 2`);
  for (const c of foreign.filter((f) => !/REFERENCES memories\s*\(region, id\)/.test(f.details))) {
    problems.push(`${c.constraint_name} does not reference memories (region, id): ${c.details}`);
  }
  return problems;
}

/** The check on a CockroachDB cluster, as one verdict of verify:plan's report. */
export async function cockroachSchemaVerdict(db: SqlClient): Promise<PlanVerdict> {
  const name = 'schema: memories keyed by partition, links by id (decision 0098)';
  try {
    const indexes = await db.query<IndexColumn>(
      sql`SELECT index_name, column_name, seq_in_index, storing, implicit FROM [SHOW INDEXES FROM memories]`,
    );
    const links = await db.query<Constraint>(
      sql`SELECT constraint_name, constraint_type, details FROM [SHOW CONSTRAINTS FROM memory_links]`,
    );
    return { name, problems: schemaProblems(indexes, links), plan: undefined };
  } catch (error) {
    return { name, problems: [`reading the schema failed: ${(error as Error).message}`], plan: undefined };
  }
}
