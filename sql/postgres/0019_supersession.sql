-- naaba 0019 (PostgreSQL, PGlite): supersession (docs/decisions/0107). The CockroachDB twin is
-- ../cockroach/0017_supersession.sql.
--
-- When the judge says a new memory contradicts one of the same user and kind, the older is
-- marked superseded by the newer: `superseded_by` names the newer, `superseded_at` says when.
-- A superseded memory counts only while the memory that replaced it exists, so forgetting the
-- newer (by any path) makes the older current again without touching its row; the link rows of
-- memory_links, written both ways as before, hold each id in the other's provenance.
--
-- An expansion: older code neither reads nor writes the columns (it keeps linking conflicts and
-- returning both), and the journal's rule check is dropped, not narrowed, so that the sweeper can
-- journal `superseded` (the rules are the JournalRule type's).
ALTER TABLE memories ADD COLUMN IF NOT EXISTS superseded_by UUID;
ALTER TABLE memories ADD COLUMN IF NOT EXISTS superseded_at TIMESTAMPTZ;
-- The sweeper walks superseded rows of one region and kind, oldest supersession first.
CREATE INDEX CONCURRENTLY IF NOT EXISTS memories_superseded ON memories (region, kind, superseded_at) WHERE superseded_at IS NOT NULL;
ALTER TABLE journal DROP CONSTRAINT IF EXISTS journal_rule_check;
