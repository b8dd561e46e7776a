-- naaba 0022 (CockroachDB): the sweeper's per-region state in rows of its own region (issue 51,
-- decision 0151). The PostgreSQL twin, ../postgres/0025_sweeper_state.sql, says what each entry
-- holds. Until now the walks kept their places in naaba_settings, a GLOBAL table: every step of
-- mark-expiring and passages-write updated a global row inside a regional transaction, so it
-- commit-waited on the global write while holding locks on users' rows, and every region's sweeper
-- contended for the same row. Here a region's entries are REGIONAL BY ROW in that region: a step
-- writes only rows homed where it runs.
--
-- An expansion, every statement safe to run again: older code keeps its naaba_settings rows, and
-- what they hold is copied here (only for regions the database has, which every sweeper's are).
CREATE TABLE IF NOT EXISTS sweeper_state (
    region crdb_internal_region NOT NULL,
    name   STRING NOT NULL,
    value  STRING,
    PRIMARY KEY (region, name)
) LOCALITY REGIONAL BY ROW AS region;

INSERT INTO sweeper_state (region, name, value)
SELECT CAST(e.key AS crdb_internal_region), 'passages', e.value
  FROM naaba_settings AS s, jsonb_each_text(CAST(s.value AS JSONB)) AS e
 WHERE s.name = 'passages_cursor' AND e.key IN (SELECT region FROM [SHOW REGIONS FROM DATABASE])
ON CONFLICT (region, name) DO NOTHING;

INSERT INTO sweeper_state (region, name, value)
SELECT CAST(split_part(e.key, '/', 1) AS crdb_internal_region), 'expiring/' || split_part(e.key, '/', 2), e.value
  FROM naaba_settings AS s, jsonb_each_text(CAST(s.value AS JSONB)) AS e
 WHERE s.name = 'expiring_cursor' AND strpos(e.key, '/') > 0
   AND split_part(e.key, '/', 1) IN (SELECT region FROM [SHOW REGIONS FROM DATABASE])
ON CONFLICT (region, name) DO NOTHING;

INSERT INTO sweeper_state (region, name, value)
SELECT CAST(e.key AS crdb_internal_region), 'expiring_kinds', e.value::STRING
  FROM naaba_settings AS s, jsonb_each(CAST(s.value AS JSONB)) AS e
 WHERE s.name = 'expiring_kinds' AND e.key IN (SELECT region FROM [SHOW REGIONS FROM DATABASE])
ON CONFLICT (region, name) DO NOTHING;
