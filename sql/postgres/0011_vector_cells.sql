-- naaba 0011 (PostgreSQL, PGlite): the vector arm reads a large partition by cells (decision 0083).
-- These engines have no vector index per (user, kind): their vector arm is exact, so its cost grows
-- with the partition. Once a partition holds enough memories, the sweeper splits its vectors into
-- cells (k-means, about √n of them, centroids here) and writes each memory's cell; recall then reads
-- only the memories of the query's nearest cells, and every memory without a cell yet (written
-- since the last sweep). Small partitions never get cells, and stay exact. CockroachDB has its own
-- per-prefix vector index and no twin of this migration.
--
-- An expansion: older code leaves `cell` null and never reads the cells. The indexes are built
-- concurrently (decision 0099): writers of a populated table never wait for them.
CREATE TABLE IF NOT EXISTS memory_cells (
    region   TEXT NOT NULL,
    user_id  UUID NOT NULL,
    kind     TEXT NOT NULL,
    cell     INT4 NOT NULL,
    -- The mean of the cell's vectors, of the embedder's dimension (typed only by use, so that
    -- `naaba reembed` to another dimension has no column to rebuild here: it clears the cells).
    centroid vector NOT NULL,
    -- False while the sweeper builds a partition's next cells: recall reads only ready ones, and
    -- one statement swaps the new cells in with every memory's place in them.
    ready    BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (region, user_id, kind, cell)
);

-- The memory's cell among its partition's ready cells; null until the sweeper assigns it.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS cell INT4;
-- Recall's vector arm reads a partition's memories a few cells at a time, and those without a
-- cell whole. Two partial indexes, each row in one of them: led by (region, user_id, kind) like
-- memories_user_kind, a full index would have been chosen for every per-user statement instead.
CREATE INDEX CONCURRENTLY IF NOT EXISTS memories_cell ON memories (region, user_id, kind, cell) WHERE cell IS NOT NULL;
CREATE INDEX CONCURRENTLY IF NOT EXISTS memories_uncelled ON memories (region, user_id, kind) WHERE cell IS NULL;

-- How many memories the partition held when its cells were built (null: it has none): the sweeper
-- builds them again when the partition has doubled or halved since.
ALTER TABLE memory_partitions ADD COLUMN IF NOT EXISTS cells_for INT4;
