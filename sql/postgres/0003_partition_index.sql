-- naaba 0003 (PostgreSQL, PGlite): the per-user index leads with region, like its CockroachDB twin.
--
-- Led by (user_id, kind), it tied with memories_expiry (region, kind, …) for a read pinning
-- region, user and kind whenever the planner had no statistics yet (a new database, a fresh
-- PostgreSQL before autovacuum's first ANALYZE), and the tie went to memories_expiry: every
-- user's rows of the kind were read, and under SERIALIZABLE the predicate locks of that read
-- made writers of different users abort each other (decision 0046). Led by all three columns it
-- matches every equality of the per-user reads and wins without statistics.
DROP INDEX memories_user_kind;
CREATE INDEX memories_user_kind ON memories (region, user_id, kind) INCLUDE (pinned, last_useful_at);
