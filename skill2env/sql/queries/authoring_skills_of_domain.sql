-- Grain: one row per skill of one domain ($domain) in the newest catalog that has selected patterns:
-- what an author reads about the skill, with the profile kit matching reads (dependency names, the
-- extensions of the files its workflow handles, file kinds), as `selection_inputs_of_domain` gives it.
-- Reads the versioned tables, not the views, whose window columns would be computed over the whole
-- catalog before the filter applies.
WITH selected AS (
    SELECT DISTINCT p.skill_id, p.path
    FROM pattern_selections_versions AS p
    JOIN latest_materializations AS pm
        ON pm.table_name = 'pattern_selections' AND pm.write_id = p.write_id
    WHERE p.partition_key = $domain AND p.pattern_id IS NOT NULL
),
files AS (
    -- A file that only packages the skill (kind `config`) says nothing about what its workflow handles.
    SELECT f.skill_id, f.skill_path,
           list(DISTINCT lower(regexp_extract(f.path, '\.([A-Za-z0-9]+)$', 1))) FILTER (WHERE f.kind <> 'config')
               AS extensions,
           list(DISTINCT f.kind) AS file_kinds
    FROM skill_files_versions AS f
    JOIN latest_materializations AS m ON m.table_name = 'skill_files' AND m.write_id = f.write_id
    SEMI JOIN selected AS c ON c.skill_id = f.skill_id AND c.path = f.skill_path
    GROUP BY ALL
)
SELECT s.* EXCLUDE (write_id, partition_key),
       list_transform(s.dependencies, lambda d: d.name) AS dependency_names,
       coalesce(list_filter(f.extensions, lambda e: e <> ''), []) AS extensions,
       coalesce(f.file_kinds, []) AS file_kinds
FROM skills_versions AS s
JOIN latest_materializations AS m
    ON m.table_name = 'skills' AND m.write_id = s.write_id
SEMI JOIN selected AS c ON c.skill_id = s.skill_id AND c.path = s.path
LEFT JOIN files AS f ON f.skill_id = s.skill_id AND f.skill_path = s.path
WHERE s.domain = $domain
ORDER BY s.path;
