-- naaba 0009 (CockroachDB): what follows a hit is read by equality (decision 0082); the PostgreSQL
-- twin is ../postgres/0010_origin_sequence.sql. A LATERAL read with a LIMIT above one is turned
-- into a join and a window here, and a lookup join cannot stop after n rows per input row: read by
-- (user, origin, kind) and time, each hit could read its whole origin. Each memory with an origin
-- now gets its place in that (user, origin, kind) when it is written, and recall reads the few
-- places after a hit's as point lookups. The memories already there are numbered in the order they
-- were written; a re-run numbers only those still without a place. Region leads, written out
-- (REGIONAL BY ROW, like every index here). Every statement is safe to run again.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS origin_seq INT8;

UPDATE memories AS m
   SET origin_seq = n.seq
  FROM (SELECT region, id, row_number() OVER (PARTITION BY region, user_id, origin, kind ORDER BY created_at, id) AS seq
          FROM memories WHERE origin IS NOT NULL) AS n
 WHERE m.region = n.region AND m.id = n.id AND m.origin_seq IS NULL;

CREATE INDEX IF NOT EXISTS memories_origin_seq ON memories (region, user_id, origin, kind, origin_seq) WHERE origin IS NOT NULL;

DROP INDEX IF EXISTS memories@memories_origin;
