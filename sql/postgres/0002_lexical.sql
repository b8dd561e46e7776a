-- The lexical arm of recall (docs/decisions/0038). Each memory's terms, made by the application's
-- LexicalAnalyzer and written by the same statement that writes the memory, in a tsvector.
-- Rows written before this migration have none until `naaba reembed` fills them; start-up
-- refuses a database whose memories were indexed by another embedder or analyzer until then.

-- btree_gin lets one GIN index lead with the ordinary (region, user_id, kind) columns, the
-- same prefix as CockroachDB's inverted index (a trusted extension: a database owner may create it).
CREATE EXTENSION IF NOT EXISTS btree_gin;

ALTER TABLE memories ADD COLUMN lexemes tsvector NOT NULL DEFAULT ''::tsvector;

-- The lexical search: the partition prefix, then the terms.
CREATE INDEX memories_lexemes ON memories USING gin (region, user_id, kind, lexemes);

-- What made the stored vectors and terms. `unrecorded` until the first start (when the table is
-- empty) or the first `naaba reembed` records the embedder and analyzer in force.
INSERT INTO naaba_settings (name, value) VALUES ('embedder', 'unrecorded'), ('lexical', 'unrecorded')
ON CONFLICT (name) DO NOTHING;
