-- Grain: one row per (domain, iteration), plus domain '*' for all domains of an iteration: tasks
-- built, how many pass each gate, how many are accepted (and of those, how many only without a judge:
-- judge items nobody can score), how many hit an infrastructure error.
CREATE OR REPLACE VIEW validation_funnel AS
WITH per_task AS (
    SELECT domain, iteration, task_id,
           bool_and(status = 'passed') FILTER (WHERE gate = 'oracle') AS oracle,
           bool_and(status = 'passed') FILTER (WHERE gate = 'nop') AS nop,
           bool_and(status = 'passed') FILTER (WHERE gate = 'partial') AS partial,
           bool_and(status IN ('passed', 'skipped')) FILTER (WHERE gate = 'leak') AS leak,
           bool_and(status IN ('passed', 'skipped')) FILTER (WHERE gate = 'judge') AS judge,
           bool_and(status = 'passed') FILTER (WHERE gate = 'hack_probe') AS hack_probe,
           bool_or(status = 'infra_error') AS infra_error,
           bool_and(accepted) AS accepted,
           bool_or(acceptance = 'accepted_without_judge') AS without_judge
    FROM validations
    GROUP BY ALL
),
gates AS (
    SELECT coalesce(domain, '*') AS domain, iteration,
           count(*) AS validated,
           count(*) FILTER (WHERE oracle) AS oracle_passed,
           count(*) FILTER (WHERE nop) AS nop_passed,
           count(*) FILTER (WHERE partial) AS partial_passed,
           count(*) FILTER (WHERE leak) AS leak_passed,
           count(*) FILTER (WHERE judge) AS judge_passed,
           count(*) FILTER (WHERE hack_probe) AS hack_probe_passed,
           count(*) FILTER (WHERE infra_error) AS infra_errors,
           count(*) FILTER (WHERE accepted) AS accepted,
           count(*) FILTER (WHERE without_judge) AS accepted_without_judge
    FROM per_task
    GROUP BY GROUPING SETS ((domain, iteration), (iteration))
),
built AS (
    SELECT coalesce(domain, '*') AS domain, iteration, count(*) AS built
    FROM tasks
    WHERE status IN ('built', 'accepted') AND source = 'pipeline'
    GROUP BY GROUPING SETS ((domain, iteration), (iteration))
)
SELECT g.domain, g.iteration, coalesce(b.built, 0) AS built, g.* EXCLUDE (domain, iteration),
       round(100.0 * g.accepted / g.validated, 1) AS accepted_pct
FROM gates AS g
LEFT JOIN built AS b USING (domain, iteration)
ORDER BY g.iteration, g.domain = '*', g.domain;
