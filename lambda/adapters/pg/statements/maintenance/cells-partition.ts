import type { Scope } from '../../../../memory/model.js';
import type { Params } from '../../sql/template.js';
import { type SqlFragment, sql, verbatim } from '../../sql/template.js';

/**
 * What the statements that keep a large partition's vector cells share (decision 0083), on
 * PostgreSQL and PGlite; the sweeper runs them. A memory's cell is its nearest centroid by cosine
 * distance, ties to the lower cell; k-means runs in the database, so no vector leaves it. A build
 * works on cells that are not ready, which recall never reads, and one statement then puts every
 * memory in them and makes them the partition's cells: no reader ever sees half a build.
 */
export interface CellPartitionInputs {
  readonly scope: Scope;
  readonly kind: string;
}

/** The row read as `alias` belongs to the partition. */
export const inPartition = (p: Params<CellPartitionInputs>, alias: string): SqlFragment => {
  const a = verbatim(alias);
  return sql`${a}.region = ${p.scope.region} AND ${a}.user_id = ${p.scope.userId}::uuid AND ${a}.kind = ${p.kind}`;
};

/** A memory's nearest cell of its partition, among the ready cells or those being built. */
export const nearestCell = (p: Params<CellPartitionInputs>, memory: string, ready: boolean): SqlFragment =>
  sql`(SELECT x.cell FROM memory_cells AS x
                 WHERE ${inPartition(p, 'x')} AND ${verbatim(ready ? '' : 'NOT ')}x.ready
                 ORDER BY x.centroid <=> ${verbatim(memory)}.embedding, x.cell
                 LIMIT 1)`;

/** What a build, a drop or an assignment of cells must read on PostgreSQL. */
export const CELLS_BUILD_PLAN = { postgresIndex: ['memories_user_kind', 'memory_cells_pkey'] };
