-- naaba 0008 (CockroachDB): the memories written after a recalled one with the same origin
-- (decision 0081); the PostgreSQL twin is ../postgres/0009_following.sql. A user's key comes
-- before the time, so writes spread with the users instead of appending at one range's tail. Only
-- memories with an origin, and origin before kind, so that it serves no read of a whole user or
-- (user, kind). Region leads, written out (REGIONAL BY ROW, like every index here).
CREATE INDEX IF NOT EXISTS memories_origin ON memories (region, user_id, origin, kind, created_at) WHERE origin IS NOT NULL;
