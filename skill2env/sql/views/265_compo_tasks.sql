-- Grain: one row per cross-service task (or skipped walk): the newest write of each CompoWorld domain.
CREATE OR REPLACE VIEW compo_tasks AS
SELECT v.* EXCLUDE (write_id, partition_key)
FROM compo_tasks_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'compo_tasks' AND m.write_id = v.write_id;
