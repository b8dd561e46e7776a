-- naaba 0010 (PostgreSQL, PGlite): what follows a hit is read by equality (decision 0082). Each
-- memory with an origin gets its place in that (user, origin, kind) when it is written, 1, 2, 3…;
-- recall reads the few places after a hit's by key, so that on every engine the read is a handful
-- of point lookups, whatever the origin holds. The memories already there are numbered in the
-- order they were written. The index replaces memories_origin (0009); it keeps its partial
-- predicate and its origin-before-kind order, for the reasons given there. The CockroachDB twin is
-- ../cockroach/0009_origin_sequence.sql.
ALTER TABLE memories ADD COLUMN origin_seq INT8;

UPDATE memories AS m
   SET origin_seq = n.seq
  FROM (SELECT region, id, row_number() OVER (PARTITION BY region, user_id, origin, kind ORDER BY created_at, id) AS seq
          FROM memories WHERE origin IS NOT NULL) AS n
 WHERE m.region = n.region AND m.id = n.id AND m.origin_seq IS NULL;

CREATE INDEX memories_origin_seq ON memories (region, user_id, origin, kind, origin_seq) WHERE origin IS NOT NULL;

DROP INDEX memories_origin;
