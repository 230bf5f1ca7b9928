-- Grain: one row per (rollout, failed rubric item) of the newest write of each partition.
CREATE OR REPLACE VIEW failure_classifications AS
SELECT v.* EXCLUDE (write_id)
FROM failure_classifications_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'failure_classifications' AND m.write_id = v.write_id;
