-- Grain: one row per skill of the newest catalog in one domain ($domain) whose path lies in
-- [$first_path, $last_path]: the columns curation reads, for one chunk.
-- Reads the versioned table, not the `skills` view: the view's window columns would be computed
-- over the whole catalog before the filter applies.
SELECT v.* EXCLUDE (write_id, partition_key)
FROM skills_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'skills' AND m.write_id = v.write_id
WHERE v.domain = $domain AND v.path BETWEEN $first_path AND $last_path
ORDER BY v.path;
