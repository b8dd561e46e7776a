-- naaba 0005 (PostgreSQL, PGlite): many users on one database (docs/decisions/0056).
-- The CockroachDB twin is ../cockroach/0004_partitions.sql.
--
-- One row per (region, user, kind) — and one per user, kind '' — that every write a ceiling or
-- the pin limit depends on writes: two such writes of one partition always meet on it, so neither
-- commits on what it read before the other (REPEATABLE READ), and a queued writer locks it first.
-- It also keeps the partition's counts, so that recall never counts the partition.
CREATE TABLE memory_partitions (
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
INSERT INTO memory_partitions (region, user_id, kind, memories)
SELECT region, user_id, kind, count(*) FROM memories GROUP BY region, user_id, kind;

-- The lexical arm's postings: which memories of a partition hold a term, how often, and their
-- length. Read by (partition, term), so recall reads the postings of the query's terms only.
CREATE TABLE memory_terms (
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
CREATE TABLE memory_partition_terms (
    region  TEXT NOT NULL,
    user_id UUID NOT NULL,
    kind    TEXT NOT NULL,
    term    TEXT NOT NULL,
    df      INT4 NOT NULL,
    PRIMARY KEY (region, user_id, kind, term) INCLUDE (df)
);
-- Frequencies that came down to zero, for the sweeper to clear: only those rows are in it.
CREATE INDEX memory_partition_terms_empty ON memory_partition_terms (region) WHERE df <= 0;

-- Each memory's distinct terms (what its postings are keyed by) and its length; filled for rows
-- written before this migration by `naaba reembed`, which start-up asks for (the analyzer's
-- name changed). The tsvector column they replace goes in the contract 0007.
ALTER TABLE memories ADD COLUMN terms TEXT[] NOT NULL DEFAULT '{}';
ALTER TABLE memories ADD COLUMN term_count INT4 NOT NULL DEFAULT 0;

-- In the expiry index only when its kind had a TTL and it is not pinned: a recall's touch of a
-- memory that never expires writes no expiry index entry. The sweeper marks rows of a kind that
-- gains a TTL, and those written before this migration (`expiring_kinds/<region>` records which
-- kinds it has marked). The index it replaces goes in the contract 0007.
ALTER TABLE memories ADD COLUMN expires BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX memories_expiring ON memories (region, kind, last_useful_at) INCLUDE (pinned) WHERE expires;

-- The pin limit counts a user's pinned memories: only those are in this index.
CREATE INDEX memories_pinned ON memories (region, user_id) WHERE pinned;
