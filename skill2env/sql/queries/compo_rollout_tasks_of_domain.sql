-- Grain: one row per current CompoTask of a CompoWorld domain with at least $min_length tools, in task order.
SELECT task_id, length, task
FROM compo_tasks
WHERE status = 'ok' AND domain = $domain AND length >= $min_length
ORDER BY task_id;
