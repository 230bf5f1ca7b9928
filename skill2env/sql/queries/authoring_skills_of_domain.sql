-- Grain: one row per skill of one domain ($domain) in the newest catalog that has selected patterns:
-- what an author reads about the skill. Reads the versioned table, not the `skills` view, whose window
-- columns would be computed over the whole catalog before the filter applies.
SELECT s.* EXCLUDE (write_id, partition_key)
FROM skills_versions AS s
JOIN latest_materializations AS m
    ON m.table_name = 'skills' AND m.write_id = s.write_id
WHERE s.domain = $domain
  AND EXISTS (
      SELECT 1
      FROM pattern_selections_versions AS p
      JOIN latest_materializations AS pm
          ON pm.table_name = 'pattern_selections' AND pm.write_id = p.write_id
      WHERE p.partition_key = $domain AND p.skill_id = s.skill_id AND p.path = s.path AND p.pattern_id IS NOT NULL
  )
ORDER BY s.path;
