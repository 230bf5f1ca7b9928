-- Grain: one row per requested domain ($domains) with curated skills in the newest curation: how many.
SELECT domain, count(*) AS skills
FROM curated_skills
WHERE curated AND list_contains($domains, domain)
GROUP BY domain
ORDER BY domain;
