-- naaba 0005 (PostgreSQL, PGlite): many users on one database (docs/decisions/0056).
-- The CockroachDB twin is ../cockroach/0004_partitions.sql. Applied in phases on a populated
-- database (decision 0099): every statement is safe to run again after a kill.
--
-- One row per (region, user, kind) — and one per user, kind '' — that every write a ceiling or
-- the pin limit depends on writes: two such writes of one partition always meet on it, so neither
-- commits on what it read before the other (REPEATABLE READ), and a queued writer locks it first.
-- It also keeps the partition's counts, so that recall never counts the partition.
CREATE TABLE IF NOT EXISTS memory_partitions (
    region     TEXT NOT NULL,
    user_id    UUID NOT NULL,
    -- '' for the user's own row (pins span the user's kinds); never a kind's name.
    kind       TEXT NOT NULL,
    -- Memories of the partition, expired ones not yet removed included (BM25's N).
    memories   INT4 NOT NULL DEFAULT 0,
    -- The sum of their lengths in terms (BM25's average length).
    term_total INT8 NOT NULL DEFAULT 0,
    -- Bumped by every ceiling write: the row two writers of the partition both write.
    writes     INT8 NOT NULL DEFAULT 0,
    PRIMARY KEY (region, user_id, kind)
);
-- The partitions already there, counted in batches in key order (decision 0099): each batch takes
-- the next {{batch}} memories after the last partition counted, and counts each partition they
-- touch whole. No running code writes this table until the file is recorded (code that knows it
-- refuses a database that lacks it), so the last row is where the backfill stands.
-- naaba:backfill
INSERT INTO memory_partitions (region, user_id, kind, memories)
SELECT m.region, m.user_id, m.kind, count(*)
  FROM (SELECT DISTINCT region, user_id, kind
          FROM (SELECT * FROM (SELECT region, user_id, kind FROM memories
                                WHERE NOT EXISTS (SELECT 1 FROM memory_partitions)
                                ORDER BY region, user_id, kind LIMIT {{batch}}) AS first_batch
                UNION ALL
                SELECT * FROM (SELECT u.region, u.user_id, u.kind
                                 FROM memories AS u,
                                      (SELECT region, user_id, kind FROM memory_partitions
                                        ORDER BY region DESC, user_id DESC, kind DESC LIMIT 1) AS done
                                WHERE (u.region, u.user_id, u.kind) > (done.region, done.user_id, done.kind)
                                ORDER BY u.region, u.user_id, u.kind LIMIT {{batch}}) AS next_batch) AS touched) AS todo
  JOIN memories AS m ON m.region = todo.region AND m.user_id = todo.user_id AND m.kind = todo.kind
 GROUP BY m.region, m.user_id, m.kind
ON CONFLICT (region, user_id, kind) DO NOTHING;

-- The lexical arm's postings: which memories of a partition hold a term, how often, and their
-- length. Read by (partition, term), so recall reads the postings of the query's terms only.
CREATE TABLE IF NOT EXISTS memory_terms (
    region    TEXT NOT NULL,
    user_id   UUID NOT NULL,
    kind      TEXT NOT NULL,
    term      TEXT NOT NULL,
    memory_id UUID NOT NULL,
    tf        INT4 NOT NULL,
    dl        INT4 NOT NULL,
    PRIMARY KEY (region, user_id, kind, term, memory_id) INCLUDE (tf, dl)
);

-- Document frequency of each term in each partition, kept on write.
CREATE TABLE IF NOT EXISTS memory_partition_terms (
    region  TEXT NOT NULL,
    user_id UUID NOT NULL,
    kind    TEXT NOT NULL,
    term    TEXT NOT NULL,
    df      INT4 NOT NULL,
    PRIMARY KEY (region, user_id, kind, term) INCLUDE (df)
);
-- Frequencies that came down to zero, for the sweeper to clear: only those rows are in it.
CREATE INDEX IF NOT EXISTS memory_partition_terms_empty ON memory_partition_terms (region) WHERE df <= 0;

-- Each memory's distinct terms (what its postings are keyed by) and its length; filled for rows
-- written before this migration by `naaba reembed`, which start-up asks for (the analyzer's
-- name changed). The tsvector column they replace goes in the contract 0007.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS terms TEXT[] NOT NULL DEFAULT '{}';
ALTER TABLE memories ADD COLUMN IF NOT EXISTS term_count INT4 NOT NULL DEFAULT 0;

-- In the expiry index only when its kind had a TTL and it is not pinned: a recall's touch of a
-- memory that never expires writes no expiry index entry. The sweeper marks rows of a kind that
-- gains a TTL, and those written before this migration (`expiring_kinds`, region → kinds, records
-- which it has marked). The index it replaces goes in the contract 0007.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS expires BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX CONCURRENTLY IF NOT EXISTS memories_expiring ON memories (region, kind, last_useful_at) INCLUDE (pinned) WHERE expires;
INSERT INTO naaba_settings (name, value) VALUES ('expiring_kinds', '{}') ON CONFLICT (name) DO NOTHING;

-- The pin limit counts a user's pinned memories: only those are in this index.
CREATE INDEX CONCURRENTLY IF NOT EXISTS memories_pinned ON memories (region, user_id) WHERE pinned;
