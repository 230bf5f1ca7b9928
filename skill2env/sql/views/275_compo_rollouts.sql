-- Grain: one row per CompoWorld rollout attempt of the newest write of each CompoWorld domain.
CREATE OR REPLACE VIEW compo_rollouts AS
SELECT v.* EXCLUDE (write_id, partition_key)
FROM compo_rollouts_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'compo_rollouts' AND m.write_id = v.write_id;
