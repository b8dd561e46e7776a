-- naaba schema for CockroachDB v25.4+ (multi-region). The PostgreSQL twin is ../postgres/0001_init.sql.
-- {{embedding_dimensions}} is filled in by the migration runner from the embedder configuration.
--
-- Before this file runs, the runner makes the database multi-region from configuration
-- (ALTER DATABASE … SET PRIMARY REGION / ADD REGION IF NOT EXISTS): the crdb_internal_region
-- type used below exists only in a multi-region database. Statements run one at a time, outside
-- any explicit transaction, and each is safe to run again, so a migration that stopped half way
-- can simply be re-run. Runtime SQL is identical on both engines: `region` is a plain column
-- that every statement sets and filters on; here it is also the row's home.

-- Facts about the schema that the runtime checks at start-up (the embedding dimension).
-- GLOBAL: read by every region's Lambda at cold start, written once.
CREATE TABLE IF NOT EXISTS naaba_settings (
    name  STRING PRIMARY KEY,
    value STRING NOT NULL
) LOCALITY GLOBAL;

INSERT INTO naaba_settings (name, value) VALUES ('embedding_dimensions', '{{embedding_dimensions}}')
ON CONFLICT (name) DO NOTHING;

-- API keys: only the SHA-256 of a token is ever stored. GLOBAL: every region's authorizer reads
-- this table on every request (fast, non-blocking local reads); keys are written rarely, and a
-- slower write at issue/revoke time is the price (docs/decisions/0030-keys-table-global.md).
CREATE TABLE IF NOT EXISTS api_keys (
    key_id       UUID PRIMARY KEY,
    token_sha256 STRING NOT NULL UNIQUE,
    name         STRING NOT NULL,
    user_id      UUID NOT NULL,
    region       STRING NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    revoked_at   TIMESTAMPTZ,
    INDEX api_keys_user (user_id, region)
) LOCALITY GLOBAL;

-- Memories live in their key's region: `region` is the row's home (REGIONAL BY ROW AS region),
-- and leads every index, so each region holds its own rows, btrees and vector trees.
-- Every key starts with region explicitly; CockroachDB would otherwise prepend it implicitly
-- and check uniqueness across all regions on every insert (docs/decisions/0031-region-column.md).
CREATE TABLE IF NOT EXISTS memories (
    id             UUID NOT NULL,
    region         crdb_internal_region NOT NULL,
    user_id        UUID NOT NULL,
    kind           STRING NOT NULL,
    content        STRING NOT NULL,
    -- SHA-256 of the canonical text: equal fingerprints are exact restatements.
    fingerprint    STRING NOT NULL,
    -- NOT NULL so that no query ever needs `embedding IS NOT NULL` (a non-prefix filter
    -- turns the vector index off).
    embedding      VECTOR({{embedding_dimensions}}) NOT NULL,
    pinned         BOOL NOT NULL DEFAULT false,
    created_at     TIMESTAMPTZ NOT NULL,
    last_useful_at TIMESTAMPTZ NOT NULL,
    recall_count   INT4 NOT NULL DEFAULT 0,
    restatements   INT4 NOT NULL DEFAULT 1,
    origin         STRING,
    agent          STRING NOT NULL,
    client         STRING NOT NULL,
    -- Latest restatement sources, newest first, bounded by the runtime.
    restated_by    JSONB NOT NULL DEFAULT '[]'::JSONB,
    PRIMARY KEY (region, id),
    -- Per-user search: one C-SPANN tree per (region, user, kind). Used only when every prefix
    -- column is pinned by equality, or by a tuple IN over the whole prefix.
    VECTOR INDEX memories_embedding (region, user_id, kind, embedding vector_cosine_ops),
    -- Non-vector per-user reads (ceiling victims, pin count, counts per kind): no index join.
    INDEX memories_user_kind (region, user_id, kind) STORING (pinned, last_useful_at),
    -- Exact restatements; fingerprint before user and kind so this index never competes with the
    -- vector index for a per-user search. Unique within a region: no cross-region check.
    UNIQUE INDEX memories_fingerprint (region, fingerprint, user_id, kind),
    -- The sweeper walks expired rows of one region and kind.
    INDEX memories_expiry (region, kind, last_useful_at) STORING (pinned)
) LOCALITY REGIONAL BY ROW AS region;

-- Conflicts the judge found; both directions are stored, and go with either memory.
-- Same home as the memories they link (the foreign keys include region).
CREATE TABLE IF NOT EXISTS memory_links (
    region    crdb_internal_region NOT NULL,
    memory_id UUID NOT NULL,
    linked_id UUID NOT NULL,
    user_id   UUID NOT NULL,
    PRIMARY KEY (region, memory_id, linked_id),
    CONSTRAINT memory_links_memory FOREIGN KEY (region, memory_id) REFERENCES memories (region, id) ON DELETE CASCADE,
    CONSTRAINT memory_links_linked_memory FOREIGN KEY (region, linked_id) REFERENCES memories (region, id) ON DELETE CASCADE,
    INDEX memory_links_linked (region, linked_id)
) LOCALITY REGIONAL BY ROW AS region;

-- One line per automatic loss. No content, no embedding, no origin, no memory id.
-- Lives in the user's region, like the memories it speaks about.
CREATE TABLE IF NOT EXISTS journal (
    id           UUID NOT NULL,
    region       crdb_internal_region NOT NULL,
    user_id      UUID NOT NULL,
    at           TIMESTAMPTZ NOT NULL,
    kind         STRING NOT NULL,
    rule         STRING NOT NULL CHECK (rule IN ('ceiling', 'expiry', 'duplicate')),
    age_s        INT8 NOT NULL,
    recall_count INT4 NOT NULL,
    PRIMARY KEY (region, id),
    INDEX journal_user_at (region, user_id, at DESC, id DESC),
    INDEX journal_region_at (region, at)
) LOCALITY REGIONAL BY ROW AS region;
