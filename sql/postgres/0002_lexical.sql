-- The lexical arm of recall (docs/decisions/0038). The CockroachDB twin is ../cockroach/0002_lexical.sql.
-- Each memory's terms, made by the application's LexicalAnalyzer and written by the same statement
-- that writes the memory, as a tsvector literal. Rows written before this migration have none
-- until `naaba reembed` fills them; start-up refuses a database whose memories were indexed by
-- another embedder or analyzer until then.
--
-- No GIN index here: the lexical read pins (region, user_id, kind) like the vector read, and
-- PostgreSQL serves both from memories_user_kind, checking `@@` on that partition's rows only
-- (exact, as the vector distance is). A GIN index over (region, user_id, kind, lexemes) with
-- btree_gin was tried and never chosen by the planner, even at 680 memories in one partition
-- (docs/decisions/0039).
ALTER TABLE memories ADD COLUMN lexemes tsvector NOT NULL DEFAULT ''::tsvector;

-- What made the stored vectors and terms. `unrecorded` until the first start on an empty table,
-- or the first `naaba reembed`, records the embedder and analyzer in force.
INSERT INTO naaba_settings (name, value) VALUES ('embedder', 'unrecorded'), ('lexical', 'unrecorded')
ON CONFLICT (name) DO NOTHING;
