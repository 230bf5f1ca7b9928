-- Grain: one row per skill of the newest catalog in one domain ($domain), the columns curation reads.
-- Reads the versioned table, not the `skills` view: the view's window columns would be computed
-- over the whole catalog before the domain filter applies.
SELECT v.* EXCLUDE (write_id, partition_key)
FROM skills_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'skills' AND m.write_id = v.write_id
WHERE v.domain = $domain
ORDER BY v.path;
