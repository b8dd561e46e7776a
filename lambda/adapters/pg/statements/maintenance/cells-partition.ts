import type { Scope } from '../../../../memory/model.js';
import type { Params } from '../../sql/template.js';
import { type SqlFragment, sql, verbatim } from '../../sql/template.js';

/**
 * What the statements that keep a large partition's vector cells share (decision 0083), on
 * PostgreSQL and PGlite; the sweeper runs them. A memory's cell is its nearest centroid by cosine
 * distance, ties to the lower cell; k-means runs in the database, so no vector leaves it. A build
 * is many short statements, each over a bounded number of memories (decision 0100): new cells are
 * ready from the start, each memory is in exactly one cell (or none, and read exactly) at every
 * moment, so a recall during a build reads a valid, if less refined, split.
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
