-- Grain: one row per skill of the newest catalog in one domain ($domain): the keys curation plans with.
SELECT v.skill_id, v.path
FROM skills_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'skills' AND m.write_id = v.write_id
WHERE v.domain = $domain
ORDER BY v.path;
