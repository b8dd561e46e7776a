-- naaba 0025 (PostgreSQL, PGlite): the sweeper's per-region state in rows of its own (issue 51,
-- decision 0151); the twin of ../cockroach/0022_sweeper_state.sql, where the table lives in each
-- row's region. Until now each walk kept its place in one naaba_settings row per walk, a JSON object
-- keyed by region, which every region's sweeper updated inside its own steps; on CockroachDB that
-- row is GLOBAL. One row per region and entry instead:
--   passages            where the passages walk stands (the last id walked, the all-ones id at its end)
--   expiring/<kind>     where the walk marking a kind that gained a TTL stopped; NULL when none runs
--   expiring_kinds      the kinds this region's sweeper has put into the expiry index (a JSON array)
--
-- An expansion: older code keeps reading and writing its naaba_settings rows, which stay; what they
-- hold now is copied here, so the new code goes on where the old stopped. A walk that both run
-- during a deploy is walked twice at most, and a second walk writes nothing (decision 0151).
CREATE TABLE IF NOT EXISTS sweeper_state (
    region text NOT NULL,
    name   text NOT NULL,
    value  text,
    PRIMARY KEY (region, name)
);

INSERT INTO sweeper_state (region, name, value)
SELECT e.key, 'passages', e.value
  FROM naaba_settings AS s, jsonb_each_text(CAST(s.value AS jsonb)) AS e
 WHERE s.name = 'passages_cursor'
ON CONFLICT (region, name) DO NOTHING;

INSERT INTO sweeper_state (region, name, value)
SELECT split_part(e.key, '/', 1), 'expiring/' || split_part(e.key, '/', 2), e.value
  FROM naaba_settings AS s, jsonb_each_text(CAST(s.value AS jsonb)) AS e
 WHERE s.name = 'expiring_cursor' AND strpos(e.key, '/') > 0
ON CONFLICT (region, name) DO NOTHING;

INSERT INTO sweeper_state (region, name, value)
SELECT e.key, 'expiring_kinds', e.value::text
  FROM naaba_settings AS s, jsonb_each(CAST(s.value AS jsonb)) AS e
 WHERE s.name = 'expiring_kinds'
ON CONFLICT (region, name) DO NOTHING;
