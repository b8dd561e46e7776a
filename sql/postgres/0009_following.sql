-- naaba 0009 (PostgreSQL, PGlite): the memories written after a recalled one with the same origin
-- (decision 0081). Recall reads, per hit, the next few of the same user, origin and kind in the
-- order they were written; this index hands them over by key. Only memories with an origin are in
-- it, and origin comes before kind, so that it cannot serve a read of a whole user or (user, kind):
-- those belong to memories_user_kind. The CockroachDB twin is ../cockroach/0008_following.sql.
CREATE INDEX CONCURRENTLY IF NOT EXISTS memories_origin ON memories (region, user_id, origin, kind, created_at) WHERE origin IS NOT NULL;
