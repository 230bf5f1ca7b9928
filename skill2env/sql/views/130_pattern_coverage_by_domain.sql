-- Grain: one row per (domain, capability): selections and distinct patterns and skills.
CREATE OR REPLACE VIEW pattern_coverage_by_domain AS
SELECT domain, capability,
       count(*) AS selections,
       count(DISTINCT pattern_id) AS patterns,
       count(DISTINCT skill_id) AS skills
FROM pattern_selections
WHERE pattern_id IS NOT NULL
GROUP BY ALL
ORDER BY domain, capability;
