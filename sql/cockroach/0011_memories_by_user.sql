-- naaba 0011 (CockroachDB): a user's memories stored together (issue 32, decision 0098). The
-- PostgreSQL twin is ../postgres/0013_memories_by_user.sql, which only seeds the setting below: a
-- PostgreSQL heap has no key order to change, and its memories_user_kind already serves the reads.
--
-- The primary key becomes (region, user_id, kind, id): a (region, user, kind) partition is one span
-- of the primary index, so a remember's deletes, its new row, a recall's hits and their touch land
-- in the user's few ranges instead of one random range per row. Every statement is safe to run
-- again; each is an online schema change (a background job; reads and writes go on), and the
-- primary key change rewrites every index of the table, so run this at a quiet hour (see 0098 for
-- how long, and what to watch).

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
