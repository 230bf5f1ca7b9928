-- Grain: one row per accepted task at one iteration ($iteration) with scored rollouts: its group's
-- mean reward (the adaptive hardening trigger ranks these).
SELECT t.domain, r.task_id, avg(r.reward) AS mean_reward
FROM rollout_rewards AS r
JOIN accepted_tasks AS t USING (task_id)
WHERE r.iteration = $iteration AND r.verification = 'scored'
GROUP BY ALL;
