-- naaba 0013 (PostgreSQL, PGlite): the twin of ../cockroach/0011_memories_by_user.sql (issue 32,
-- decision 0098). CockroachDB stores a user's memories together under a new primary key; a
-- PostgreSQL heap has no key order to change, and memories_user_kind already covers the remember's
-- read of its partition. What both engines need is where the sweeper's walk of a region's memories
-- for a kind that gained a TTL stopped (region/kind → last id walked), so that each run goes on
-- from there instead of reading the region again (maintenance/mark-expiring).
INSERT INTO naaba_settings (name, value) VALUES ('expiring_cursor', '{}') ON CONFLICT (name) DO NOTHING;
