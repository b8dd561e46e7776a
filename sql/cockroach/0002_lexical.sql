-- The lexical arm of recall (docs/decisions/0038). The PostgreSQL twin is ../postgres/0002_lexical.sql.
-- Each memory's terms, made by the application's LexicalAnalyzer and written by the same statement
-- that writes the memory, as a TSVECTOR literal (CockroachDB's own parser never sees the text, so
-- both engines store the same terms). Rows written before this migration have none until
-- `naaba reembed` fills them. Every statement is safe to run again.

ALTER TABLE memories ADD COLUMN IF NOT EXISTS lexemes TSVECTOR NOT NULL DEFAULT ''::TSVECTOR;

-- Multi-column inverted index: region (the row's home, written out so that it is not added
-- implicitly), user and kind are its prefix; used only when all three are pinned by equality or
-- a tuple IN, with `lexemes @@ <constant tsquery>`; the sessions force custom plans so that the
-- query is a constant when the plan is made (docs/index-compatibility.md).
CREATE INVERTED INDEX IF NOT EXISTS memories_lexemes ON memories (region, user_id, kind, lexemes);

-- What made the stored vectors and terms; `unrecorded` until the first start on an empty table
-- or the first `naaba reembed` records them.
INSERT INTO naaba_settings (name, value) VALUES ('embedder', 'unrecorded'), ('lexical', 'unrecorded')
ON CONFLICT (name) DO NOTHING;
