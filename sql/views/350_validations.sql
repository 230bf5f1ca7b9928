-- Grain: one row per (task, gate) of the newest validation of each partition.
CREATE OR REPLACE VIEW validations AS
SELECT v.* EXCLUDE (write_id)
FROM validations_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'validations' AND m.write_id = v.write_id;
