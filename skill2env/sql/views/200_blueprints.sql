-- Grain: one row per blueprint (task name, iteration) of the newest write of each domain.
CREATE OR REPLACE VIEW blueprints AS
SELECT v.* EXCLUDE (write_id, partition_key)
FROM blueprints_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'blueprints' AND m.write_id = v.write_id;
