-- Grain: one row per accepted task id with a stored directory (its newest version) that no hardening
-- round flagged as defective, by id or by content (a defective task is carried unchanged into the next
-- iteration): what `skill2env export rl` copies.
WITH defective AS (
    SELECT h.task_id, t.task_digest
    FROM hardening_rounds AS h
    LEFT JOIN tasks AS t USING (task_id)
    WHERE h.outcome = 'defective'
)
SELECT a.task_id, a.task_name, a.domain, a.iteration, a.skill_id, a.skill_path, a.task_digest, a.store_path
FROM accepted_tasks AS a
WHERE a.store_path IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM defective AS d WHERE d.task_id = a.task_id OR d.task_digest = a.task_digest)
QUALIFY row_number() OVER (PARTITION BY a.task_id ORDER BY a.materialized_at DESC, a.task_digest) = 1
ORDER BY a.task_id;
