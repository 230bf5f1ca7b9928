-- Grain: one row per (stage, iteration, status, reason) of what did not succeed, with how many items
-- and one of them: authoring rows that made no task or a rejected one (`tasks`), gates a task failed
-- or could not run (`validations`), rollouts the infrastructure or the model ended (`rollouts`,
-- `compo_rollouts`), hardening rebuilds that were refused (`hardening_rounds`). Reasons are cut at
-- their first colon, their asides in parentheses dropped and their digits folded, so one cause is
-- one row; an authoring reason loses its "author NAME failed|declined: " lead and keeps the name
-- after its first colon when it has one ("blueprint: ModelRefused", "the task could not be built:
-- build.unresolved_package").
--   SELECT * FROM stage_failures WHERE stage = 'authoring'
CREATE OR REPLACE VIEW stage_failures AS
WITH failures AS (
    SELECT 'authoring' AS stage, iteration, status, coalesce(reasons[1], 'no reason recorded') AS reason,
           coalesce(task_id, skill_path) AS item,
           rtrim(regexp_extract(regexp_replace(coalesce(reasons[1], 'no reason recorded'),
                                               '^author [^ ]+ (failed|declined): ', ''),
                                '^[^:]*(: [A-Za-z_][A-Za-z0-9_.]*:)?'), ':') AS cause
    FROM tasks
    WHERE status IN ('skipped', 'error', 'rejected')
    UNION ALL
    SELECT 'validation', iteration, status, gate || ': ' || evidence, task_id, gate
    FROM validations
    WHERE status IN ('failed', 'infra_error')
    UNION ALL
    SELECT 'rollouts', iteration, status, coalesce(error, status), rollout_id, split_part(coalesce(error, status), ':', 1)
    FROM rollouts
    WHERE status IN ('infra_error', 'sandbox_broken', 'model_error')
    UNION ALL
    SELECT 'hardening', iteration, outcome, reason, task_id, split_part(reason, ':', 1)
    FROM hardening_rounds
    WHERE outcome = 'rejected'
    UNION ALL
    SELECT 'compoworld rollouts', iteration, status, coalesce(error, status), rollout_id,
           split_part(coalesce(error, status), ':', 1)
    FROM compo_rollouts
    WHERE status IN ('infra_error', 'sandbox_broken', 'model_error')
)
SELECT stage, iteration, status, reason, items, example, example_reason
FROM (
    SELECT stage, iteration, status,
           regexp_replace(regexp_replace(cause, ' [(][^)]*[)]', '', 'g'), '[0-9]+([.][0-9]+)?', 'N', 'g') AS reason,
           count(*) AS items, min(item) AS example, any_value(reason) AS example_reason,
           list_position(['authoring', 'validation', 'rollouts', 'hardening', 'compoworld rollouts'], stage) AS step
    FROM failures
    GROUP BY stage, iteration, status, 4
)
ORDER BY step, iteration, items DESC, reason;
