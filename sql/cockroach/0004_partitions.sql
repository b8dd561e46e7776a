-- Many users on one database (docs/decisions/0056). The PostgreSQL twin is
-- ../postgres/0005_partitions.sql. Every statement is safe to run again.
--
-- One row per (region, user, kind) — and one per user, kind '' — that every write a ceiling or
-- the pin limit depends on writes (or locks first, when queued), and that keeps the partition's
-- counts for recall. Homed with the user's memories.
CREATE TABLE IF NOT EXISTS memory_partitions (
    region     crdb_internal_region NOT NULL,
    user_id    UUID NOT NULL,
    kind       STRING NOT NULL,
    memories   INT4 NOT NULL DEFAULT 0,
    term_total INT8 NOT NULL DEFAULT 0,
    writes     INT8 NOT NULL DEFAULT 0,
    PRIMARY KEY (region, user_id, kind)
) LOCALITY REGIONAL BY ROW AS region;

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

-- The lexical arm's postings, keyed by (partition, term): recall reads the query's terms only,
-- and scores from the posting itself (frequency, length) without reading the memory's row.
CREATE TABLE IF NOT EXISTS memory_terms (
    region    crdb_internal_region NOT NULL,
    user_id   UUID NOT NULL,
    kind      STRING NOT NULL,
    term      STRING NOT NULL,
    memory_id UUID NOT NULL,
    tf        INT4 NOT NULL,
    dl        INT4 NOT NULL,
    PRIMARY KEY (region, user_id, kind, term, memory_id)
) LOCALITY REGIONAL BY ROW AS region;

-- Document frequency of each term in each partition, kept on write.
CREATE TABLE IF NOT EXISTS memory_partition_terms (
    region  crdb_internal_region NOT NULL,
    user_id UUID NOT NULL,
    kind    STRING NOT NULL,
    term    STRING NOT NULL,
    df      INT4 NOT NULL,
    PRIMARY KEY (region, user_id, kind, term),
    -- Frequencies that came down to zero, for the sweeper: only those rows are in it.
    INDEX memory_partition_terms_empty (region, df) WHERE df <= 0
) LOCALITY REGIONAL BY ROW AS region;

ALTER TABLE memories ADD COLUMN IF NOT EXISTS terms STRING[] NOT NULL DEFAULT ARRAY[]:::STRING[];
ALTER TABLE memories ADD COLUMN IF NOT EXISTS term_count INT4 NOT NULL DEFAULT 0;
ALTER TABLE memories ADD COLUMN IF NOT EXISTS expires BOOL NOT NULL DEFAULT false;

-- Time-ordered keys, hash-sharded so that a region's writes do not all land at one range's tail
-- (engine-facts §8.6): the region is prepended implicitly (listing it is an error, §8.1), giving
-- keys (region, shard, kind, last_useful_at, id). Only rows that can expire are in it. The bucket
-- count is NAABA_HASH_BUCKETS (default 16), filled in by the migration runner; indexes created
-- before it was configurable have 16 (docs/deployment.md, "Hash-sharded indexes", to change it).
CREATE INDEX IF NOT EXISTS memories_expiring ON memories (kind, last_useful_at) USING HASH STORING (pinned) WITH (bucket_count = {{hash_buckets}}) WHERE expires;
-- Which kinds each region's sweeper has put into that index (region → kinds).
INSERT INTO naaba_settings (name, value) VALUES ('expiring_kinds', '{}') ON CONFLICT (name) DO NOTHING;

-- The pin limit counts a user's pinned memories: only those are in this index.
CREATE INDEX IF NOT EXISTS memories_pinned ON memories (region, user_id) WHERE pinned;

-- The journal's trim walks lines by time: hash-sharded, keys (region, shard, at, id).
CREATE INDEX IF NOT EXISTS journal_at ON journal (at) USING HASH WITH (bucket_count = {{hash_buckets}});

-- OAuth's expiry and registration-window indexes, the same way.
CREATE INDEX IF NOT EXISTS oauth_codes_expiring ON oauth_codes (expires_at) USING HASH WITH (bucket_count = {{hash_buckets}});
CREATE INDEX IF NOT EXISTS oauth_tokens_expiring ON oauth_tokens (expires_at) USING HASH WITH (bucket_count = {{hash_buckets}});
CREATE INDEX IF NOT EXISTS oauth_clients_registered ON oauth_clients (created_at) USING HASH WITH (bucket_count = {{hash_buckets}});

-- What these replace (the inverted index, the TSVECTOR column, the indexes at one range's tail)
-- goes in the contract 0006, once no code older than this migration runs.
