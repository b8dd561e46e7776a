-- naaba schema for PostgreSQL (PGlite locally). The CockroachDB twin is ../cockroach/0001_init.sql.
-- {{embedding_dimensions}} is filled in by the migration runner from the embedder configuration.

CREATE EXTENSION IF NOT EXISTS vector;

-- Facts about the schema that the runtime checks at start-up (the embedding dimension).
CREATE TABLE naaba_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO naaba_settings (name, value) VALUES ('embedding_dimensions', '{{embedding_dimensions}}');

-- API keys: only the SHA-256 of a token is ever stored.
CREATE TABLE api_keys (
    key_id       UUID PRIMARY KEY,
    token_sha256 TEXT NOT NULL UNIQUE,
    name         TEXT NOT NULL,
    user_id      UUID NOT NULL,
    region       TEXT NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL,
    revoked_at   TIMESTAMPTZ
);
CREATE INDEX api_keys_user ON api_keys (user_id, region);

CREATE TABLE memories (
    id             UUID NOT NULL,
    -- The key's region: the row's home (CockroachDB: REGIONAL BY ROW AS region).
    region         TEXT NOT NULL,
    user_id        UUID NOT NULL,
    kind           TEXT NOT NULL,
    content        TEXT NOT NULL,
    -- SHA-256 of the canonical text: equal fingerprints are exact restatements.
    fingerprint    TEXT NOT NULL,
    embedding      vector({{embedding_dimensions}}) NOT NULL,
    pinned         BOOLEAN NOT NULL DEFAULT false,
    created_at     TIMESTAMPTZ NOT NULL,
    last_useful_at TIMESTAMPTZ NOT NULL,
    recall_count   INT4 NOT NULL DEFAULT 0,
    restatements   INT4 NOT NULL DEFAULT 1,
    origin         TEXT,
    agent          TEXT NOT NULL,
    client         TEXT NOT NULL,
    -- Latest restatement sources, newest first, bounded by the runtime.
    restated_by    JSONB NOT NULL DEFAULT '[]'::JSONB,
    -- Region leads every key, as in the CockroachDB twin (where it is the partition column).
    PRIMARY KEY (region, id)
);
-- Per-user search: the btree narrows to one (user, kind), distance is exact over those rows.
-- (CockroachDB: the VECTOR INDEX (region, user_id, kind, embedding) does this job.)
CREATE INDEX memories_user_kind ON memories (user_id, kind) INCLUDE (pinned, last_useful_at);
-- Exact restatements. Fingerprint comes before user and kind so that this index cannot serve a
-- per-user scan: those belong to memories_user_kind (and, on CockroachDB, the vector index).
CREATE UNIQUE INDEX memories_fingerprint ON memories (region, fingerprint, user_id, kind);
-- The sweeper walks expired rows of one region and kind.
CREATE INDEX memories_expiry ON memories (region, kind, last_useful_at) INCLUDE (pinned);

-- Conflicts the judge found; both directions are stored, and go with either memory.
CREATE TABLE memory_links (
    region    TEXT NOT NULL,
    memory_id UUID NOT NULL,
    linked_id UUID NOT NULL,
    user_id   UUID NOT NULL,
    PRIMARY KEY (region, memory_id, linked_id),
    FOREIGN KEY (region, memory_id) REFERENCES memories (region, id) ON DELETE CASCADE,
    FOREIGN KEY (region, linked_id) REFERENCES memories (region, id) ON DELETE CASCADE
);
CREATE INDEX memory_links_linked ON memory_links (region, linked_id);

-- One line per automatic loss. No content, no embedding, no origin, no memory id.
CREATE TABLE journal (
    id           UUID NOT NULL,
    region       TEXT NOT NULL,
    user_id      UUID NOT NULL,
    at           TIMESTAMPTZ NOT NULL,
    kind         TEXT NOT NULL,
    rule         TEXT NOT NULL CHECK (rule IN ('ceiling', 'expiry', 'duplicate')),
    age_s        INT8 NOT NULL,
    recall_count INT4 NOT NULL,
    PRIMARY KEY (region, id)
);
CREATE INDEX journal_user_at ON journal (user_id, at DESC, id DESC);
CREATE INDEX journal_region_at ON journal (region, at);
