-- Grain: one row per task version of one domain ($domain) at one iteration ($iteration) that has a
-- failed rubric item: its directory, rubric, blueprint and the oracle's per-item q at validation.
WITH failing AS (
    SELECT DISTINCT task_id
    FROM rubric_scores
    WHERE domain = $domain AND iteration = $iteration AND verification = 'scored' AND status = 'failed'
),
oracle AS (
    SELECT task_id, any_value(item_rewards) AS oracle_item_rewards, any_value(status) AS oracle_status
    FROM validations
    WHERE gate = 'oracle' AND iteration = $iteration
    GROUP BY task_id
),
task AS (
    SELECT task_id, store_path, rubric, blueprint_digest
    FROM tasks
    WHERE iteration = $iteration AND status IN ('built', 'accepted')
    QUALIFY row_number() OVER (PARTITION BY task_id ORDER BY materialized_at DESC) = 1
)
SELECT f.task_id, t.store_path, t.rubric, t.blueprint_digest, b.blueprint,
       o.oracle_item_rewards::VARCHAR AS oracle_item_rewards, o.oracle_status
FROM failing AS f
LEFT JOIN task AS t USING (task_id)
LEFT JOIN (SELECT blueprint_digest, any_value(blueprint) AS blueprint FROM blueprints GROUP BY 1) AS b
    USING (blueprint_digest)
LEFT JOIN oracle AS o USING (task_id)
ORDER BY f.task_id;
