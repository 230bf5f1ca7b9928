-- Grain: one row per (curated skill, chosen pattern) of the newest selection of each domain,
-- with the skill's name; skills with no compatible pattern appear once with pattern_id NULL.
CREATE OR REPLACE VIEW pattern_selections AS
SELECT v.* EXCLUDE (write_id, partition_key), s.name AS skill_name
FROM pattern_selections_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'pattern_selections' AND m.write_id = v.write_id
LEFT JOIN skills AS s
    ON s.skill_id = v.skill_id AND s.path = v.path;
