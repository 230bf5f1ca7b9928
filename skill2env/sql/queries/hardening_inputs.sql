-- Grain: one row per accepted task of one domain ($domain) at one iteration ($iteration) with its
-- blueprint and its solver group's results: what hardening decides on.
WITH groups AS (
    SELECT task_id, avg(reward) AS mean_reward, count(*) AS attempts,
           count(*) FILTER (WHERE verification = 'infra_error') AS infra_errors
    FROM rollout_rewards
    WHERE iteration = $iteration
    GROUP BY task_id
)
SELECT t.task_id, t.task_name, t.domain, t.iteration, t.skill_id, t.skill_path, t.store_path, t.task_digest,
       t.author, t.patterns, t.rubric, t.findings, t.workspace_files, t.formats, t.leak_checked, t.leak_leaked,
       t.blueprint_digest, b.blueprint, g.mean_reward, g.attempts, g.infra_errors,
       coalesce(d.evaluator_defects, 0) + coalesce(d.missing_material, 0) AS defects, d.defect_items
FROM accepted_tasks AS t
LEFT JOIN task_defects AS d USING (task_id)
LEFT JOIN (SELECT DISTINCT blueprint_digest, blueprint FROM blueprints) AS b USING (blueprint_digest)
LEFT JOIN groups AS g USING (task_id)
WHERE t.domain = $domain AND t.iteration = $iteration
ORDER BY t.task_id;
