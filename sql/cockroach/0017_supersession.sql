-- naaba 0017 (CockroachDB): supersession (docs/decisions/0107); the PostgreSQL twin,
-- ../postgres/0019_supersession.sql, says what each column is for. Region leads the new index,
-- written out (REGIONAL BY ROW, like every index here). Every statement is safe to run again.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS superseded_by UUID;
ALTER TABLE memories ADD COLUMN IF NOT EXISTS superseded_at TIMESTAMPTZ;
CREATE INDEX IF NOT EXISTS memories_superseded ON memories (region, kind, superseded_at) WHERE superseded_at IS NOT NULL;
ALTER TABLE journal DROP CONSTRAINT IF EXISTS check_rule;
