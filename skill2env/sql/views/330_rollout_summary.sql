-- Grain: one row per (domain, policy, model, backend) of `rollouts`: attempts by status, turns, tokens, time.
CREATE OR REPLACE VIEW rollout_summary AS
SELECT
    domain,
    policy,
    coalesce(model, '') AS model,
    backend,
    count(*) AS attempts,
    count(DISTINCT task_id) AS tasks,
    count(*) FILTER (WHERE status = 'completed') AS completed,
    count(*) FILTER (WHERE status = 'max_turns') AS max_turns,
    count(*) FILTER (WHERE status = 'max_tokens') AS max_tokens,
    count(*) FILTER (WHERE status = 'agent_timeout') AS agent_timeout,
    count(*) FILTER (WHERE status = 'model_error') AS model_error,
    count(*) FILTER (WHERE status = 'sandbox_broken') AS sandbox_broken,
    count(*) FILTER (WHERE status = 'infra_error') AS infra_error,
    round(avg(turns), 2) AS mean_turns,
    CAST(sum(input_tokens + output_tokens) AS BIGINT) AS tokens,
    round(median(wall_s), 2) AS median_wall_s
FROM rollouts
GROUP BY ALL
ORDER BY domain, policy, model, backend;
