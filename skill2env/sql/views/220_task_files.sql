-- Grain: one row per file of each task directory in `tasks`.
CREATE OR REPLACE VIEW task_files AS
SELECT v.* EXCLUDE (write_id, partition_key)
FROM task_files_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'task_files' AND m.write_id = v.write_id;
