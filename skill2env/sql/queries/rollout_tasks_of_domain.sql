-- Grain: one row per task of a domain ready to roll out (built or accepted, stored): where it lies.
SELECT task_id, task_name, domain, iteration, task_digest, store_path
FROM tasks
WHERE domain = $domain
  AND status IN ('built', 'accepted')
  AND task_id IS NOT NULL
  AND store_path IS NOT NULL
ORDER BY task_id;
