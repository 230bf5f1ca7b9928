-- Grain: one row per tool of the newest service graph.
CREATE OR REPLACE VIEW service_tools AS
SELECT v.* EXCLUDE (write_id, partition_key)
FROM service_tools_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'service_tools' AND m.write_id = v.write_id;
