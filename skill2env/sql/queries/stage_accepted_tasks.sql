-- Grain: one row per task of one domain ($domain) at one iteration ($iteration) that passed every
-- validation gate: what the rollout stage runs.
SELECT task_id, task_name, domain, iteration, task_digest, store_path, rubric, skill_id, skill_path,
       blueprint_digest, patterns, author
FROM accepted_tasks
WHERE domain = $domain AND iteration = $iteration
ORDER BY task_id;
