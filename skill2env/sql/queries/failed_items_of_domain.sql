-- Grain: one row per (scored rollout, failed rubric item) of one domain ($domain) at one iteration
-- ($iteration), with its evidence: what the verification agent classifies.
SELECT rollout_id, task_id, attempt, item_id, method, weight, status, q, evidence, error
FROM rubric_scores
WHERE domain = $domain AND iteration = $iteration AND verification = 'scored' AND status = 'failed'
ORDER BY task_id, attempt, rollout_id, item_id;
