-- naaba 0022 (PostgreSQL, PGlite): the sweeper's walk of partitions that may need vector cells
-- reads marked partitions only (decision 0118). It paged through every partition row of a region
-- and filtered on the size, so on a region of many small partitions one page read far past its
-- batch. A partition is marked when a write brings its count to the size for cells (VECTOR_CELLS.from)
-- and while it has cells; the sweeper unmarks one that has neither. The mark changes a few times in
-- a partition's life, so the many writes that only move the count leave every indexed column as it
-- was and stay HOT updates, with no index write: an index on the count itself would take one on
-- every remember. No CockroachDB twin: CockroachDB keeps no cells (decision 0083).
--
-- An expansion: older code never reads the column, and writes it only through its default.
ALTER TABLE memory_partitions ADD COLUMN IF NOT EXISTS cells_due BOOLEAN NOT NULL DEFAULT false;

-- The marked partitions only, in the order the sweeper pages through them.
CREATE INDEX CONCURRENTLY IF NOT EXISTS memory_partitions_cells_due ON memory_partitions (region, user_id, kind) WHERE cells_due;

-- The partitions already there that the sweeper would have read, {{batch}} at a time (decision
-- 0099): each batch marks only rows not yet marked, so the runner stops when none is left, and a
-- re-run after a kill goes on from there. Older code still running meanwhile does not mark a
-- partition it grows past the size; the new code's next write to it does.
-- naaba:backfill
UPDATE memory_partitions AS p SET cells_due = true
  FROM (SELECT region, user_id, kind FROM memory_partitions
         WHERE NOT cells_due AND kind <> '' AND (memories >= {{cells_from}} OR cells_for IS NOT NULL)
         ORDER BY region, user_id, kind
         LIMIT {{batch}}) AS todo
 WHERE p.region = todo.region AND p.user_id = todo.user_id AND p.kind = todo.kind;
