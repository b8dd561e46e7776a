-- naaba 0020 (CockroachDB): where the sweeper's walk that gives postings their passage masks
-- stopped, per region (decision 0119); the PostgreSQL twin, ../postgres/0023_passages_walk.sql,
-- says what the walk does. The walk reads memories by memories_id, as mark-expiring's does.
INSERT INTO naaba_settings (name, value) VALUES ('passages_cursor', '{}') ON CONFLICT (name) DO NOTHING;
