-- Grain: one row per (task, strategy) of the newest hack-probe write of each partition.
CREATE OR REPLACE VIEW hack_probes AS
SELECT h.* EXCLUDE (write_id)
FROM hack_probes_versions AS h
JOIN latest_materializations AS m
    ON m.table_name = 'hack_probes' AND m.write_id = h.write_id;
