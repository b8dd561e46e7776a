-- naaba 0010 (PostgreSQL, PGlite): what follows a hit is read by equality (decision 0082). Each
-- memory with an origin gets its place in that (user, origin, kind) when it is written, 1, 2, 3…;
-- recall reads the few places after a hit's by key, so that on every engine the read is a handful
-- of point lookups, whatever the origin holds. The memories already there are numbered in the
-- order they were written, after the last place of their origin; a re-run numbers only those still
-- without a place. The index keeps 0009's partial predicate and origin-before-kind order, for the
-- reasons given there; memories_origin stays until a later release's contract migration drops it,
-- since older code reads it until then. The CockroachDB twin is ../cockroach/0009_origin_sequence.sql.
ALTER TABLE memories ADD COLUMN origin_seq INT8;

UPDATE memories AS m
   SET origin_seq = n.seq
  FROM (SELECT u.region, u.id,
               COALESCE(t.last_place, 0)
               + row_number() OVER (PARTITION BY u.region, u.user_id, u.origin, u.kind ORDER BY u.created_at, u.id) AS seq
          FROM memories AS u
          LEFT JOIN (SELECT region, user_id, origin, kind, max(origin_seq) AS last_place
                       FROM memories WHERE origin IS NOT NULL AND origin_seq IS NOT NULL
                      GROUP BY region, user_id, origin, kind) AS t
            ON t.region = u.region AND t.user_id = u.user_id AND t.origin = u.origin AND t.kind = u.kind
         WHERE u.origin IS NOT NULL AND u.origin_seq IS NULL) AS n
 WHERE m.region = n.region AND m.id = n.id;

CREATE INDEX memories_origin_seq ON memories (region, user_id, origin, kind, origin_seq) WHERE origin IS NOT NULL;

