-- Grain: one row per (skill, chosen pattern) of one domain ($domain) in the newest selection.
SELECT p.* EXCLUDE (write_id, partition_key)
FROM pattern_selections_versions AS p
JOIN latest_materializations AS m
    ON m.table_name = 'pattern_selections' AND m.write_id = p.write_id
WHERE p.partition_key = $domain AND p.pattern_id IS NOT NULL
ORDER BY p.path, p.rank;
