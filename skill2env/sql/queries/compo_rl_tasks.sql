-- Grain: one row per current CompoTask (status ok) of every CompoWorld domain: the whole task (initial
-- states, goal, oracle, rubric) with its services and tags — an RL environment of the gateway's services.
SELECT task_id, domain, length, services, capability_tags, rubric_items, task
FROM compo_tasks
WHERE status = 'ok'
ORDER BY domain, task_id;
