-- naaba 0023 (PostgreSQL, PGlite): where the sweeper's walk that gives postings their passage
-- masks stopped, per region (decision 0119); the twin of ../cockroach/0020_passages_walk.sql.
-- Postings written before 0021, or by older code while it ran, have no mask and are read as one
-- passage (decision 0115). The sweeper walks each region's memories by id a page at a time, cuts
-- those longer than one passage with the analyzer in force (it is not SQL) and writes the masks of
-- their postings still without one, recording here where it stands: region → last id walked, the
-- all-ones id once it reached the end. A live backfill: nothing here reads or writes a memory.
INSERT INTO naaba_settings (name, value) VALUES ('passages_cursor', '{}') ON CONFLICT (name) DO NOTHING;
