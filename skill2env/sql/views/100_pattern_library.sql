-- Grain: one row per pattern of the newest pool.
CREATE OR REPLACE VIEW pattern_library AS
SELECT v.* EXCLUDE (write_id, partition_key)
FROM pattern_library_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'pattern_library' AND m.write_id = v.write_id;
