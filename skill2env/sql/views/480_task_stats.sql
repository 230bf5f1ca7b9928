-- Grain: one row per (domain, iteration), plus domain '*': skills, tasks built and accepted (and the
-- authoring rows that made no task: skipped, failed), workspace files and formats, patterns per task,
-- the solver's reward distribution and turns.
CREATE OR REPLACE VIEW task_stats AS
WITH built AS (
    SELECT domain, iteration, task_id, skill_id, status, workspace_files, formats, len(patterns) AS patterns
    FROM tasks
    WHERE source = 'pipeline'
),
accepted AS (SELECT DISTINCT task_id FROM accepted_tasks),
rewards AS (
    SELECT r.task_id, avg(r.reward) AS reward, avg(r.full_credit::INTEGER) AS full_credit, avg(o.turns) AS turns
    FROM rollout_rewards AS r
    LEFT JOIN rollouts AS o USING (rollout_id)
    WHERE r.verification = 'scored'
    GROUP BY r.task_id
)
SELECT coalesce(b.domain, '*') AS domain, b.iteration,
       count(DISTINCT b.skill_id) AS skills,
       count(*) FILTER (WHERE b.status IN ('built', 'accepted')) AS tasks_built,
       count(*) FILTER (WHERE b.status = 'rejected') AS tasks_rejected,
       count(a.task_id) AS tasks_accepted,
       count(*) FILTER (WHERE b.task_id IS NULL AND b.status = 'skipped') AS skills_skipped,
       count(*) FILTER (WHERE b.task_id IS NULL AND b.status = 'error') AS authoring_errors,
       sum(b.workspace_files) FILTER (WHERE b.task_id IS NOT NULL)::BIGINT AS workspace_files,
       round(avg(b.workspace_files) FILTER (WHERE b.task_id IS NOT NULL), 2) AS files_per_task,
       list_sort(list_distinct(flatten(list(b.formats)))) AS formats,
       round(avg(b.patterns) FILTER (WHERE b.task_id IS NOT NULL), 2) AS patterns_per_task,
       round(avg(w.reward), 4) AS mean_reward,
       quantile_cont(w.reward, 0.5) AS median_reward,
       round(avg(w.full_credit), 4) AS full_credit_rate,
       round(avg(w.turns), 2) AS mean_turns
FROM built AS b
LEFT JOIN accepted AS a USING (task_id)
LEFT JOIN rewards AS w USING (task_id)
GROUP BY GROUPING SETS ((b.domain, b.iteration), (b.iteration))
ORDER BY b.iteration, domain = '*', domain;
