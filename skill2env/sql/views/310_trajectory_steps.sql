-- Grain: one row per step of every rollout in `rollouts` (the newest write of each domain).
CREATE OR REPLACE VIEW trajectory_steps AS
SELECT v.* EXCLUDE (write_id, partition_key), v.partition_key AS domain
FROM trajectory_steps_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'trajectory_steps' AND m.write_id = v.write_id;
