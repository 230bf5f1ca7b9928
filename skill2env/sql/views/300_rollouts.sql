-- Grain: one row per rollout attempt of the newest write of each domain.
CREATE OR REPLACE VIEW rollouts AS
SELECT v.* EXCLUDE (write_id, partition_key)
FROM rollouts_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'rollouts' AND m.write_id = v.write_id;
