-- naaba 0011 (CockroachDB): a user's memories stored together (issue 32, decision 0098). The
-- PostgreSQL twin is ../postgres/0013_memories_by_user.sql, which only seeds the setting below: a
-- PostgreSQL heap has no key order to change, and its memories_user_kind already serves the reads.
--
-- The primary key becomes (region, user_id, kind, id): a (region, user, kind) partition is one span
-- of the primary index, so a remember's deletes, its new row, a recall's hits and their touch land
-- in the user's few ranges instead of one random range per row. Every statement is safe to run
-- again; each is an online schema change (a background job).
--
-- naaba:rewrite memories: its primary key, and with it every index of the table, the vector index included
--
-- On a populated table (decision 0152; reasoned from CockroachDB's documentation, not measured: no
-- cluster has run it). What it rewrites: a table with a hash-sharded index or REGIONAL BY ROW falls
-- back to the legacy schema changer, which builds a new primary index (every row, each with its
-- vector: at VECTOR(1024), 4 KiB a memory, so about 4 GB of vectors per million memories before
-- replication) and rebuilds every secondary index that does not hold the new key's columns: all of
-- them here, memories_embedding included, which inserts each vector again through a vector mutation
-- search. What it blocks: reads go on; writes to memories (remember, forget, a recall's touch, the
-- sweeper's deletes) are taken by v25.4 and later while the vector index is rebuilt
-- (cockroachdb/cockroach#151074), but the vector-index docs of v25.4 to v26.3 still list writes
-- blocked during a vector-index backfill, so plan for that: for as long as the rebuild takes, about
-- as long as loading the same memories one vector at a time, per million memories a million vector
-- mutation searches, and temporary space for a second copy. `npm run bench:migrate -- --url URL
-- --regions PRIMARY,OTHER --rows 1000000` measures it on a cluster. `naaba migrate` refuses this
-- file while memories holds rows unless given --allow-rewrite; the safe path for a populated
-- cluster is in docs/deployment.md ("Rewrites on a populated cluster"). An empty table (a first
-- deploy) rewrites nothing and is not refused.

-- What follows a hit is read by place since 0009 (memories_origin_seq); no code that knows 0009
-- reads this one. Dropped first, so that the primary key change does not rebuild it.
DROP INDEX IF EXISTS memories@memories_origin;

-- The old key, kept by name: memory_links' foreign keys reference (region, id), and a read by id
-- alone (forget, the page, a link) finds its row through it. Created before the key changes, so
-- that ALTER PRIMARY KEY keeps it as the unique index on the old key instead of adding one of its
-- own (it adds none when a unique, non-partial index on exactly those columns exists). Region leads,
-- written out: uniqueness is checked in the row's region only.
CREATE UNIQUE INDEX IF NOT EXISTS memories_id ON memories (region, id);

-- Does nothing once the key is (region, user_id, kind, id): a re-run after it succeeded is a no-op.
ALTER TABLE memories ALTER PRIMARY KEY USING COLUMNS (region, user_id, kind, id);

-- The remember's read of its partition (ceiling, expiry, duplicates) in full from one narrow span:
-- without fingerprint stored, memories_user_kind sent every row of the partition to the primary
-- index for it, and the primary index holds the vector (4 KiB at 1024 dimensions).
CREATE INDEX IF NOT EXISTS memories_partition ON memories (region, user_id, kind) STORING (pinned, last_useful_at, fingerprint);
DROP INDEX IF EXISTS memories@memories_user_kind;

-- Where the sweeper's walk of a region's memories for a kind that gained a TTL stopped
-- (region/kind → last id walked), so that each run goes on from there (maintenance/mark-expiring).
INSERT INTO naaba_settings (name, value) VALUES ('expiring_cursor', '{}') ON CONFLICT (name) DO NOTHING;
