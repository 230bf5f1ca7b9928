-- Grain: one row per accepted task id with a stored directory (its newest version) not in
-- `defective_tasks` — flagged by a hardening round or by `task_defects` — by id or by content (hardening
-- carries a task unchanged into the next iteration under a new id): what `skill2env export rl` copies.
SELECT a.task_id, a.task_name, a.domain, a.iteration, a.skill_id, a.skill_path, a.task_digest, a.store_path
FROM accepted_tasks AS a
WHERE a.store_path IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM defective_tasks AS d WHERE d.task_id = a.task_id)
  AND NOT EXISTS (SELECT 1 FROM defective_tasks AS d WHERE d.task_digest = a.task_digest)
QUALIFY row_number() OVER (PARTITION BY a.task_id ORDER BY a.materialized_at DESC, a.task_digest) = 1
ORDER BY a.task_id;
