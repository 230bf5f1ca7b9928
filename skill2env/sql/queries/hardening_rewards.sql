-- Grain: one row per scored attempt of one domain ($domain) at one iteration ($iteration): every
-- solver group's rewards, for hardening.
SELECT task_id, rollout_id, attempt, reward
FROM rollout_rewards
WHERE domain = $domain AND iteration = $iteration AND verification = 'scored'
ORDER BY task_id, attempt;
