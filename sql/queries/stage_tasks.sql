-- Grain: one row per built task of one domain ($domain) at one iteration ($iteration): what the
-- validation stage checks.
SELECT task_id, task_name, domain, iteration, task_digest, store_path, rubric, findings, skill_id, skill_path,
       blueprint_digest, patterns, author
FROM tasks
WHERE domain = $domain AND iteration = $iteration AND source = 'pipeline'
  AND status IN ('built', 'accepted') AND task_id IS NOT NULL AND store_path IS NOT NULL
ORDER BY task_id;
