-- Grain: one row per task the hardening stage after iteration $iteration - 1 built for iteration
-- $iteration of domain $domain and ran every gate on (`child_gates` holds the validation rows).
SELECT child_task_id AS task_id, child_gates
FROM hardening_rounds
WHERE domain = $domain AND iteration = $iteration - 1 AND outcome = 'hardened' AND child_gates IS NOT NULL;
