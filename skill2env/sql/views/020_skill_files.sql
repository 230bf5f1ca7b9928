-- Grain: one row per file of a skill folder of the newest catalog.
CREATE OR REPLACE VIEW skill_files AS
SELECT v.* EXCLUDE (write_id, partition_key)
FROM skill_files_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'skill_files' AND m.write_id = v.write_id;
