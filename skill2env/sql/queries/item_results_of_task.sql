-- Grain: one row per (rollout, rubric item) of one task ($task_id): the group's item results.
SELECT rollout_id, attempt, item_id, status, q
FROM rubric_scores
WHERE task_id = $task_id AND verification = 'scored' AND item_id IS NOT NULL
ORDER BY attempt, item_id;
