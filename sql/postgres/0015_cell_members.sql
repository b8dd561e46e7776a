-- naaba 0015 (PostgreSQL, PGlite): each vector cell keeps how many memories it holds (decision 0100).
-- Recall reads a partition's nearest cells until it has read a bounded number of memories
-- (`FUSION.cellRows`), whatever the partition's size, instead of a share of its cells; it needs each
-- cell's size to know where to stop. The sweeper writes it with the centroid (the refresh), so it
-- is as current as the centroid. A cell whose count is not known yet (0, as every cell is right
-- after this migration) costs nothing against the bound: recall reads such a partition by all of
-- its cells, exactly, until the next sweep writes the counts.
--
-- An expansion: older code never reads the column.
ALTER TABLE memory_cells ADD COLUMN members INT4 NOT NULL DEFAULT 0;

-- The memories without a cell, oldest first: the sweeper reads them a batch at a time (`ORDER BY
-- created_at, id LIMIT n`), an order only this index hands over without a sort, so PostgreSQL reads
-- it whatever its statistics say. Keyed (region, user_id, kind) alone, a plain LIMIT over it was
-- planned as a scan of the table when the statistics still counted every memory as without a cell
-- (right after a build placed them all); in id order, as a walk of the region's primary key. Same
-- name, same rows: recall's read of a partition's uncelled memories is unchanged.
-- Both concurrently (decision 0117): in one transaction, the DROP held every read and write of
-- memories for as long as the new index took to build (`npm run bench:migrate`). Between the two,
-- recall finds a partition's uncelled memories through memories_user_kind, slower, for as long as
-- the build lasts; a re-run drops whatever the last run left and builds it again.
DROP INDEX CONCURRENTLY IF EXISTS memories_uncelled;
CREATE INDEX CONCURRENTLY IF NOT EXISTS memories_uncelled ON memories (region, user_id, kind, created_at, id) WHERE cell IS NULL;
