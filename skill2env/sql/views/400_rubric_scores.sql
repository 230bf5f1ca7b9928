-- Grain: one row per (rollout, rubric item) of the newest write of each partition.
CREATE OR REPLACE VIEW rubric_scores AS
SELECT v.* EXCLUDE (write_id)
FROM rubric_scores_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'rubric_scores' AND m.write_id = v.write_id;
