-- Grain: one row per (rollout, flag rule, agent step) of the newest write of each partition. A rollout
-- with any row here never becomes an SFT example and is marked in the RL export.
CREATE OR REPLACE VIEW rollout_flags AS
SELECT v.* EXCLUDE (write_id, partition_key)
FROM rollout_flags_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'rollout_flags' AND m.write_id = v.write_id;
