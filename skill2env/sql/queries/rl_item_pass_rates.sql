-- Grain: one row per (task, iteration, policy, rubric item) of `item_pass_rates` whose policy is $policy
-- (every policy when $policy is NULL): the item's pass rate over the group of attempts, its RL weight.
SELECT task_id, iteration, policy, item_id, method, weight, attempts, passes, mean_q, pass_rate, rl_weight
FROM item_pass_rates
WHERE CAST($policy AS VARCHAR) IS NULL OR policy = $policy
ORDER BY task_id, policy, item_id;
