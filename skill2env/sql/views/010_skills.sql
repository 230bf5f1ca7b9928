-- Grain: one row per skill folder of the newest catalog; `name_count` > 1 marks duplicate names.
CREATE OR REPLACE VIEW skills AS
SELECT
    v.* EXCLUDE (write_id, partition_key),
    count(*) OVER (PARTITION BY lower(v.name)) AS name_count,
    count(*) OVER (PARTITION BY v.skill_id) AS content_count
FROM skills_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'skills' AND m.write_id = v.write_id;
