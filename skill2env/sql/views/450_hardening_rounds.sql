-- Grain: one row per task considered for hardening, newest write of each partition.
CREATE OR REPLACE VIEW hardening_rounds AS
SELECT v.* EXCLUDE (write_id)
FROM hardening_rounds_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'hardening_rounds' AND m.write_id = v.write_id;
