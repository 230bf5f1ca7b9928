-- Grain: one row per task version (or skipped skill) of the newest write of each partition
-- (a domain of the pipeline, or one imported folder: `partition_key` says which).
CREATE OR REPLACE VIEW tasks AS
SELECT v.* EXCLUDE (write_id)
FROM tasks_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'tasks' AND m.write_id = v.write_id;
