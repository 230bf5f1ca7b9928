-- Grain: one row per task id that has a stored directory and a status in $statuses: its newest version.
SELECT task_id, task_digest, store_path, status
FROM tasks
WHERE task_id IS NOT NULL AND store_path IS NOT NULL AND list_contains($statuses, status)
QUALIFY row_number() OVER (PARTITION BY task_id ORDER BY materialized_at DESC, task_digest) = 1
ORDER BY task_id;
