-- Grain: one row per (ecosystem, package) that skills of the newest catalog depend on.
CREATE OR REPLACE VIEW catalog_dependencies AS
SELECT d.ecosystem, d.name, count(DISTINCT skill_id) AS skills
FROM (SELECT skill_id, unnest(dependencies) AS d FROM skills)
GROUP BY d.ecosystem, d.name
ORDER BY skills DESC, d.ecosystem, d.name;
