-- Grain: one row per (domain, policy, model, backend) of `compo_rollouts`: attempts by status, rewards, calls
-- (`full_credit`: reward at least `full_credit_at()`, skill2env.thresholds.FULL_CREDIT_AT).
CREATE OR REPLACE VIEW compo_rollout_summary AS
SELECT
    domain,
    policy,
    coalesce(model, '') AS model,
    backend,
    count(*) AS attempts,
    count(DISTINCT task_id) AS tasks,
    count(*) FILTER (WHERE status = 'completed') AS completed,
    count(*) FILTER (WHERE status = 'infra_error') AS infra_error,
    round(avg(reward), 4) AS mean_reward,
    count(*) FILTER (WHERE reward >= full_credit_at()) AS full_credit,
    round(avg(turns), 2) AS mean_turns,
    round(avg(tool_calls), 2) AS mean_tool_calls
FROM compo_rollouts
GROUP BY ALL
ORDER BY domain, policy, model, backend;
