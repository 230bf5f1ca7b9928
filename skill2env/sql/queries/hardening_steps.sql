-- Grain: one row per agent step of the attempts of the tasks rolled out in one domain ($domain) at
-- one iteration ($iteration): what each solver group did, for hardening.
SELECT task_id, rollout_id, step_id, tool_calls, observations
FROM trajectory_steps
WHERE task_id IN (SELECT DISTINCT task_id FROM rollout_rewards WHERE domain = $domain AND iteration = $iteration)
ORDER BY task_id, rollout_id, step_id;
