import { inExpiryIndexIn } from '../../../../memory/policy/expiry.js';
import { expression, SQL } from '../../sql/policy.js';
import { statement } from '../../sql/statement.js';
import { sql, verbatim } from '../../sql/template.js';

/** The `expires` flag of a memory of the walked kind, which has a TTL (policy/expiry.ts). */
const marks = expression(inExpiryIndexIn(SQL, { pinned: verbatim('m.pinned'), kindExpires: true }));

export interface MarkExpiringInputs {
  readonly region: string;
  readonly kind: string;
  /** Where the walk stopped (the last id walked), or the nil UUID to start. */
  readonly after: string;
  /** The walk's entry in the region's `sweeper_state` (`expiring/<kind>`). */
  readonly entry: string;
  readonly batch: number;
}

/**
 * One step of the walk that puts a kind's unpinned memories into the expiry index once the kind has
 * gained a TTL: the region's next `batch` memories in id order (memories_pkey on PostgreSQL,
 * memories_id on CockroachDB), those of the kind marked. No index leads with the kind, since one
 * would cost every remember a write for the sake of a rare change of rules; a walk by key reads
 * `batch` rows per step however large the region is, and the whole region once. The step records
 * where it stopped in the same statement, in the region's own row of `sweeper_state` (never a
 * GLOBAL row, decision 0151), and clears it when it reaches the end, so the next run goes on from
 * there and a later walk of the kind starts afresh.
 */
export const MARK_EXPIRING = statement<MarkExpiringInputs, { walked: number; marked: number }>({
  name: 'maintenance/mark-expiring',
  expects: { regionBatch: true, postgresIndex: 'memories_pkey', cockroachIndex: 'memories@memories_id' },
  render: (p) => sql`
WITH page AS (
  SELECT m.id FROM memories AS m
   WHERE m.region = ${p.region} AND m.id > ${p.after}::uuid
   ORDER BY m.id
   LIMIT ${p.batch}::int4
), marked AS (
  UPDATE memories AS m SET expires = ${marks}
   WHERE m.region = ${p.region} AND m.id IN (SELECT id FROM page) AND m.kind = ${p.kind} AND ${marks} AND NOT m.expires
  RETURNING 1
), walked AS (
  SELECT (SELECT count(*) FROM page) AS n, (SELECT id::text FROM page ORDER BY id DESC LIMIT 1) AS last
), recorded AS (
  INSERT INTO sweeper_state (region, name, value)
  SELECT ${p.region}, ${p.entry}, CASE WHEN w.n < ${p.batch}::int4 THEN NULL ELSE w.last END FROM walked AS w
  ON CONFLICT (region, name) DO UPDATE SET value = excluded.value
  RETURNING 1
)
SELECT (SELECT n FROM walked)::int4 AS walked, (SELECT count(*) FROM marked)::int4 AS marked`,
});
