-- Grain: one row per (domain, author) of the tasks whose information boundary was checked, one per
-- domain (author '*') and one overall ('*', '*'): values searched for, values leaked, the leak rate.
CREATE OR REPLACE VIEW leak_report AS
WITH checked AS (
    SELECT coalesce(domain, '?') AS task_domain, coalesce(author, '?') AS task_author, leak_checked, leak_leaked
    FROM tasks
    WHERE leak_checked IS NOT NULL
)
SELECT CASE WHEN grouping(task_domain) = 1 THEN '*' ELSE task_domain END AS domain,
       CASE WHEN grouping(task_author) = 1 THEN '*' ELSE task_author END AS author,
       count(*) AS tasks,
       count(*) FILTER (WHERE leak_leaked > 0) AS tasks_leaking,
       sum(leak_checked)::BIGINT AS values_checked,
       sum(leak_leaked)::BIGINT AS values_leaked,
       CASE WHEN sum(leak_checked) > 0 THEN sum(leak_leaked) / sum(leak_checked) END AS leak_rate
FROM checked
GROUP BY GROUPING SETS ((task_domain, task_author), (task_domain), ())
ORDER BY domain, author;
