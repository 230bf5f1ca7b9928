-- Grain: one row per (domain, iteration, strategy), plus domain '*' for all domains of an iteration
-- and strategy '*' for all strategies: tasks probed, tasks that resisted every strategy, tasks a
-- strategy beat (rejected), tasks with an unverified probe; per strategy row, the tasks it beat.
CREATE OR REPLACE VIEW hack_probe_funnel AS
WITH per_task AS (
    SELECT domain, iteration, task_id,
           bool_or(status = 'failed') AS rejected,
           bool_and(status = 'passed') AS resisted,
           bool_or(status = 'infra_error') AS infra_error
    FROM hack_probes
    GROUP BY ALL
),
tasks AS (
    SELECT coalesce(domain, '*') AS domain, iteration, '*' AS strategy, '*' AS family,
           count(*) AS tasks_probed,
           count(*) FILTER (WHERE resisted) AS tasks_passed,
           count(*) FILTER (WHERE rejected) AS tasks_rejected,
           count(*) FILTER (WHERE infra_error) AS tasks_infra_error,
           count(*) FILTER (WHERE rejected) AS tasks_beaten,
           NULL::DOUBLE AS max_reward
    FROM per_task
    GROUP BY GROUPING SETS ((domain, iteration), (iteration))
),
strategies AS (
    SELECT coalesce(domain, '*') AS domain, iteration, strategy, any_value(family) AS family,
           count(DISTINCT task_id) AS tasks_probed,
           count(DISTINCT task_id) FILTER (WHERE status = 'passed') AS tasks_passed,
           count(DISTINCT task_id) FILTER (WHERE status = 'failed') AS tasks_rejected,
           count(DISTINCT task_id) FILTER (WHERE status = 'infra_error') AS tasks_infra_error,
           count(DISTINCT task_id) FILTER (WHERE status = 'failed') AS tasks_beaten,
           max(reward) AS max_reward
    FROM hack_probes
    GROUP BY GROUPING SETS ((domain, iteration, strategy), (iteration, strategy))
)
-- The union as a subquery: ordering a bare UNION by an expression (`domain = '*'`) needs DuckDB 2.0.
SELECT *
FROM (SELECT * FROM tasks UNION ALL BY NAME SELECT * FROM strategies)
ORDER BY iteration, domain = '*', domain, strategy <> '*', tasks_beaten DESC, strategy;
