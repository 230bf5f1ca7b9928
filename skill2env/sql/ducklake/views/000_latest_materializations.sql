-- Grain: one row per (table, partition): its newest committed write.
-- DuckLake: `snapshot_id` (a virtual column) is the snapshot that committed the row, numbered by the
-- catalog in commit order; it is the write's `seq`.
CREATE OR REPLACE VIEW latest_materializations AS
SELECT * REPLACE (snapshot_id AS seq)
FROM materializations
QUALIFY row_number() OVER (PARTITION BY table_name, partition_key ORDER BY snapshot_id DESC) = 1;
