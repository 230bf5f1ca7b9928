-- Grain: one row per (domain, iteration), plus domain '*': the paper's Figure 5 over PAIRED tasks —
-- families that have an accepted, rolled-out version at every iteration present — scored on the
-- solver's rollouts (scripted validation runs are not rollouts of this table).
CREATE OR REPLACE VIEW hardening_curve AS
WITH versions AS (
    SELECT f.family, t.task_id, t.iteration, t.domain, t.workspace_files, len(t.patterns) AS challenges
    FROM task_families AS f
    JOIN accepted_tasks AS t USING (task_id)
),
rolled AS (
    SELECT v.*, r.rollout_id, r.reward, r.full_credit, o.turns
    FROM versions AS v
    JOIN rollout_rewards AS r ON r.task_id = v.task_id AND r.verification = 'scored'
    LEFT JOIN rollouts AS o ON o.rollout_id = r.rollout_id
),
iterations AS (SELECT count(DISTINCT iteration) AS n FROM rolled),
paired AS (
    SELECT family FROM rolled GROUP BY family
    HAVING count(DISTINCT iteration) = (SELECT n FROM iterations)
)
SELECT coalesce(domain, '*') AS domain, iteration,
       count(DISTINCT task_id) AS tasks,
       count(*) AS rollouts,
       round(avg(full_credit::INTEGER), 4) AS full_credit_rate,
       round(avg(reward), 4) AS mean_reward,
       round(avg(turns), 2) AS mean_turns,
       quantile_cont(turns, 0.5) AS median_turns,
       quantile_cont(turns, 0.9) AS p90_turns,
       round(avg(workspace_files), 2) AS mean_workspace_files,
       round(avg(challenges), 2) AS mean_challenges
FROM rolled
WHERE family IN (SELECT family FROM paired)
GROUP BY GROUPING SETS ((domain, iteration), (iteration))
ORDER BY iteration, domain = '*', domain;
