-- Grain: one row per pipeline task version: the iteration-0 task it descends from (its family),
-- following hardening rounds parent → child.
CREATE OR REPLACE VIEW task_families AS
WITH RECURSIVE chain(task_id, family) AS (
    SELECT task_id, task_id FROM tasks WHERE iteration = 0 AND task_id IS NOT NULL AND source = 'pipeline'
    UNION ALL
    SELECT h.child_task_id, c.family
    FROM hardening_rounds AS h
    JOIN chain AS c ON c.task_id = h.task_id
    WHERE h.child_task_id IS NOT NULL
)
SELECT DISTINCT task_id, family FROM chain;
