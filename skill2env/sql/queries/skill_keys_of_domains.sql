-- Grain: one row per skill of the newest catalog in the domains $domains (a list): the keys curation
-- plans with, in domain then path order.
SELECT v.domain, v.skill_id, v.path
FROM skills_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'skills' AND m.write_id = v.write_id
WHERE list_contains($domains, v.domain)
ORDER BY v.domain, v.path;
