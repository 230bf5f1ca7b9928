-- Grain: one row per statistic of the accepted iteration-0 task set, beside the paper's figure for its
-- 2,963 tasks (NULL where the paper gives none): tasks, domains, initial workspace files, and the
-- catalog statistics of the skills behind them.
CREATE OR REPLACE VIEW task_set_stats AS
WITH task_set AS (
    SELECT DISTINCT task_id, domain, workspace_files FROM accepted_tasks WHERE iteration = 0
),
largest AS (
    SELECT domain, count(*) AS tasks FROM task_set GROUP BY domain ORDER BY tasks DESC, domain LIMIT 1
),
ours AS (
    SELECT 'tasks' AS statistic, count(*) AS value, NULL AS note FROM task_set
    UNION ALL SELECT 'domains', count(DISTINCT domain), NULL FROM task_set
    UNION ALL SELECT 'initial_workspace_files', coalesce(sum(workspace_files), 0)::BIGINT, NULL FROM task_set
    UNION ALL SELECT 'largest_domain_tasks', tasks, domain FROM largest
    UNION ALL SELECT statistic, value, NULL FROM catalog_stats
        WHERE scope = 'tasked' AND statistic IN ('skill_files', 'languages', 'programs', 'ecosystems',
                                                 'dependencies', 'cli_tools')
),
paper(statistic, paper_value, paper_note, position) AS (
    VALUES ('tasks', 2963, NULL, 1), ('domains', 25, NULL, 2), ('initial_workspace_files', 46295, NULL, 3),
           ('largest_domain_tasks', 320, 'software engineering & code quality', 4), ('skill_files', 19649, NULL, 5),
           ('languages', 13, NULL, 6), ('programs', 101, NULL, 7), ('ecosystems', 8, NULL, 8),
           ('dependencies', 4242, NULL, 9), ('cli_tools', 823, NULL, 10)
)
SELECT p.statistic, coalesce(o.value, 0)::BIGINT AS value, o.note, p.paper_value::BIGINT AS paper_value, p.paper_note
FROM paper AS p
LEFT JOIN ours AS o USING (statistic)
ORDER BY p.position;
