-- Grain: one row per CompoWorld service of the newest catalog, with its verification.
CREATE OR REPLACE VIEW services AS
SELECT v.* EXCLUDE (write_id, partition_key)
FROM services_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'services' AND m.write_id = v.write_id;
