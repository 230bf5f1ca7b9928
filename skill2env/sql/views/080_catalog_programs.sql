-- Grain: one row per external program referenced by skills of the newest catalog.
CREATE OR REPLACE VIEW catalog_programs AS
SELECT program, count(DISTINCT skill_id) AS skills
FROM (SELECT skill_id, unnest(programs) AS program FROM skills)
GROUP BY program
ORDER BY skills DESC, program;
