-- Grain: one row per distinct stored task version (`task_digest`) whose validation outcome is in
-- $outcomes: `accepted` (passed every gate), `rejected` (failed a gate, or rejected before validation),
-- `unvalidated` (stored, never validated: imports, runs stopped before validation). A task carried
-- unchanged into the next iteration is one version: its task ids and iterations are listed.
WITH newest AS (
    SELECT task_id, task_name, iteration, task_digest, store_path, status, materialized_at
    FROM tasks
    WHERE task_id IS NOT NULL AND store_path IS NOT NULL AND status IN ('built', 'accepted', 'rejected')
    QUALIFY row_number() OVER (PARTITION BY task_id ORDER BY materialized_at DESC, task_digest) = 1
),
validated AS (
    SELECT task_id, bool_or(accepted) AS accepted FROM validations GROUP BY task_id
),
judged AS (
    SELECT n.*,
           CASE WHEN n.status = 'rejected' THEN 'rejected'
                WHEN v.accepted THEN 'accepted'
                WHEN v.accepted IS NOT NULL THEN 'rejected'
                ELSE 'unvalidated' END AS outcome
    FROM newest AS n LEFT JOIN validated AS v USING (task_id)
)
SELECT task_digest,
       min(task_id) AS task_id,
       min(task_name) AS task_name,
       min(iteration) AS iteration,
       any_value(store_path ORDER BY task_id) AS store_path,
       list(DISTINCT task_id ORDER BY task_id) AS task_ids,
       list(DISTINCT iteration ORDER BY iteration) AS iterations,
       min(outcome) AS outcome
FROM judged
WHERE list_contains($outcomes, outcome)
GROUP BY task_digest
ORDER BY task_name, iteration, task_digest;
