-- Grain: one row per built task of one domain ($domain) at one iteration ($iteration): what the
-- validation stage checks, with its blueprint (the leak gate searches the stored task for its hidden values).
SELECT t.task_id, t.task_name, t.domain, t.iteration, t.task_digest, t.store_path, t.rubric, t.findings, t.skill_id,
       t.skill_path, t.blueprint_digest, t.patterns, t.author,
       (SELECT any_value(b.blueprint) FROM blueprints AS b WHERE b.blueprint_digest = t.blueprint_digest) AS blueprint
FROM tasks AS t
WHERE t.domain = $domain AND t.iteration = $iteration AND t.source = 'pipeline'
  AND t.status IN ('built', 'accepted') AND t.task_id IS NOT NULL AND t.store_path IS NOT NULL
ORDER BY t.task_id;
