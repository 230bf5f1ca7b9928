-- Grain: one row per curated skill of one domain ($domain) in the newest catalog and curation:
-- the profile pattern selection scores (texts, languages, programs, dependencies, file kinds).
WITH latest_skills AS (
    SELECT v.*
    FROM skills_versions AS v
    JOIN latest_materializations AS m ON m.table_name = 'skills' AND m.write_id = v.write_id
    WHERE v.domain = $domain
),
latest_curation AS (
    SELECT c.skill_id, c.path
    FROM curated_skills_versions AS c
    JOIN latest_materializations AS m ON m.table_name = 'curated_skills' AND m.write_id = c.write_id
    WHERE c.partition_key = $domain AND c.curated
),
files AS (
    -- A file that only packages the skill (its registry record, a package manifest or lock file, kind
    -- `config`) says nothing about the files its workflow handles: its extension is left out.
    SELECT f.skill_id, f.skill_path,
           list(DISTINCT lower(regexp_extract(f.path, '\.([A-Za-z0-9]+)$', 1))) FILTER (WHERE f.kind <> 'config')
               AS extensions,
           list(DISTINCT f.kind) AS file_kinds
    FROM skill_files_versions AS f
    JOIN latest_materializations AS m ON m.table_name = 'skill_files' AND m.write_id = f.write_id
    SEMI JOIN latest_curation AS c ON c.skill_id = f.skill_id AND c.path = f.skill_path
    GROUP BY ALL
)
SELECT s.skill_id, s.path, s.domain, s.name, s.description, s.skill_md_text,
       s.languages, s.programs, s.cli_tools,
       list_transform(s.dependencies, lambda d: d.name) AS dependency_names,
       coalesce(f.extensions, []) AS extensions,
       coalesce(f.file_kinds, []) AS file_kinds
FROM latest_skills AS s
JOIN latest_curation AS c ON c.skill_id = s.skill_id AND c.path = s.path
LEFT JOIN files AS f ON f.skill_id = s.skill_id AND f.skill_path = s.path
ORDER BY s.path;
