-- Grain: one row per skill of the newest catalog: the newest curation of its domain partition.
CREATE OR REPLACE VIEW curated_skills AS
SELECT v.* EXCLUDE (write_id, partition_key), s.name, s.source
FROM curated_skills_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'curated_skills' AND m.write_id = v.write_id
JOIN skills AS s
    ON s.skill_id = v.skill_id AND s.path = v.path;
