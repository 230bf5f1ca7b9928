-- Grain: one row per (rollout, rubric item) of the scored attempts of one domain ($domain) at one
-- iteration ($iteration): every solver group's item results, for hardening.
SELECT task_id, rollout_id, attempt, item_id, status, q
FROM rubric_scores
WHERE domain = $domain AND iteration = $iteration AND verification = 'scored' AND item_id IS NOT NULL
ORDER BY task_id, attempt, item_id;
