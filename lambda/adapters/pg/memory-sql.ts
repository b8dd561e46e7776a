/**
 * The runtime SQL of the memory store, in the subset PostgreSQL and CockroachDB both accept.
 * Every statement is one round trip and atomic on its own. Vector reads carry only prefix
 * equality (region, user, kind) so that CockroachDB's vector index applies; every other check
 * runs on the rows they return. Writes: write-sql.ts; recall: recall-sql.ts; the page's reads:
 * page-sql.ts; what they share: sql-parts.ts.
 */
export * from './page-sql.js';
export * from './recall-sql.js';
export { unexpired } from './sql-parts.js';
export * from './write-sql.js';
export * from './cells-sql.js';
