-- Grain: one row per (table, partition): its newest committed write.
CREATE OR REPLACE VIEW latest_materializations AS
SELECT *
FROM materializations
QUALIFY row_number() OVER (PARTITION BY table_name, partition_key ORDER BY seq DESC) = 1;
