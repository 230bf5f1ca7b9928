-- Grain: one row per (task, iteration, policy, rubric item): the item's pass rate over the group of
-- attempts (infrastructure errors and unscored items excluded), and its low-pass-rate RL weight:
-- w' ∝ w · (1 − pass_rate + ε) with ε = `pass_rate_floor()` (skill2env.thresholds.PASS_RATE_FLOOR),
-- normalised per (task, iteration, policy) — the CompoWorld idea of pushing training toward what the
-- group does not do yet.
CREATE OR REPLACE VIEW item_pass_rates AS
WITH rates AS (
    SELECT task_id, iteration, policy, item_id, any_value(method) AS method, any_value(weight) AS weight,
           count(*) AS attempts,
           count(*) FILTER (WHERE status = 'passed') AS passes,
           avg(q) AS mean_q,
           count(*) FILTER (WHERE status = 'passed') / count(*) AS pass_rate
    FROM rubric_scores
    WHERE verification = 'scored' AND status IN ('passed', 'failed')
    GROUP BY task_id, iteration, policy, item_id
)
SELECT *, weight * (1.0 - pass_rate + pass_rate_floor())
          / sum(weight * (1.0 - pass_rate + pass_rate_floor())) OVER (PARTITION BY task_id, iteration, policy) AS rl_weight
FROM rates;
