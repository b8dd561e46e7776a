-- naaba 0009 (CockroachDB): what follows a hit is read by equality (decision 0082); the PostgreSQL
-- twin is ../postgres/0010_origin_sequence.sql. A LATERAL read with a LIMIT above one is turned
-- into a join and a window here, and a lookup join cannot stop after n rows per input row: read by
-- (user, origin, kind) and time, each hit could read its whole origin. Each memory with an origin
-- now gets its place in that (user, origin, kind) when it is written, and recall reads the few
-- places after a hit's as point lookups. The memories already there are numbered in the order they
-- were written, after the last place of their origin, in batches (decision 0099); a re-run numbers
-- only those still without a place. memories_origin stays until a later release's contract migration drops it, since older
-- code reads it until then. Region leads, written out (REGIONAL BY ROW, like every index here).
-- Every statement is safe to run again.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS origin_seq INT8;

-- The index recall reads places by; built before the backfill, which finds each origin's last
-- place in it.
CREATE INDEX IF NOT EXISTS memories_origin_seq ON memories (region, user_id, origin, kind, origin_seq) WHERE origin IS NOT NULL;

-- The memories still without a place, in the order they are numbered: it empties as the backfill
-- goes, so that each batch reads only what is not done (decision 0099). Dropped once it is empty.
CREATE INDEX IF NOT EXISTS memories_unplaced ON memories (region, user_id, origin, kind, created_at, id)
 WHERE origin IS NOT NULL AND origin_seq IS NULL;

-- The next {{batch}} memories without a place, in (user, origin, kind, time) order, each numbered
-- after the last place of its origin: a batch that stops inside an origin leaves its later
-- memories to the next, which numbers them after the places this one gave.
-- naaba:backfill
UPDATE memories AS m
   SET origin_seq = n.seq
  FROM (SELECT u.region, u.id,
               COALESCE((SELECT max(p.origin_seq) FROM memories AS p
                          WHERE p.region = u.region AND p.user_id = u.user_id AND p.origin = u.origin
                            AND p.kind = u.kind AND p.origin IS NOT NULL), 0)
               + row_number() OVER (PARTITION BY u.region, u.user_id, u.origin, u.kind ORDER BY u.created_at, u.id) AS seq
          FROM (SELECT region, id, user_id, origin, kind, created_at FROM memories
                 WHERE origin IS NOT NULL AND origin_seq IS NULL
                 ORDER BY region, user_id, origin, kind, created_at, id
                 LIMIT {{batch}}) AS u) AS n
 WHERE m.region = n.region AND m.id = n.id;

DROP INDEX IF EXISTS memories@memories_unplaced;
