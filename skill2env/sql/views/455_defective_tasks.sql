-- Grain: one row per (task id, stored version) flagged as defective — by a hardening round
-- (`outcome = 'defective'`) or by `task_defects` (a failed item classified as a construction defect) —
-- with the version's digest (NULL when the id has no row in `tasks`) and what flagged it. A task is
-- defective by id or by content: hardening carries a task unchanged into the next iteration under a new
-- id, and a copy is just as defective, so readers leave out rows matching either column (the RL export,
-- the SFT candidates).
CREATE OR REPLACE VIEW defective_tasks AS
WITH flagged AS (
    SELECT task_id, 'hardening_rounds' AS flagged_by FROM hardening_rounds WHERE outcome = 'defective'
    UNION
    SELECT task_id, 'task_defects' AS flagged_by FROM task_defects
),
ids AS (
    SELECT task_id, list(flagged_by ORDER BY flagged_by) AS flagged_by FROM flagged GROUP BY task_id
)
SELECT i.task_id, t.task_digest, i.flagged_by
FROM ids AS i
LEFT JOIN (SELECT DISTINCT task_id, task_digest FROM tasks) AS t USING (task_id);
