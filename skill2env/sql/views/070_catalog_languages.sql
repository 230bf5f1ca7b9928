-- Grain: one row per language of the newest catalog's skill files (SKILL.md itself excluded).
CREATE OR REPLACE VIEW catalog_languages AS
SELECT language, count(*) AS files, count(DISTINCT skill_id) AS skills, sum(size) AS bytes
FROM skill_files
WHERE language IS NOT NULL AND kind <> 'skill_md'
GROUP BY language
ORDER BY files DESC, language;
