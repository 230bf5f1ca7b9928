-- Grain: one row per (domain, capability tag): how many current tasks carry the tag.
CREATE OR REPLACE VIEW compo_task_tags AS
SELECT domain, tag, count(*) AS tasks
FROM (SELECT domain, unnest(capability_tags) AS tag FROM compo_tasks WHERE status = 'ok')
GROUP BY ALL
ORDER BY domain, tag;
