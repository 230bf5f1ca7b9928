-- Grain: one row: what the first iteration's stages made of what they were given, to tell a stage that
-- produced nothing because its items failed from one that had nothing to do (or declined all of it:
-- skills no author serves are skipped, not failed).
SELECT (SELECT count(*) FROM tasks WHERE iteration = 0 AND source = 'pipeline') AS authored,
       (SELECT count(*) FROM tasks WHERE iteration = 0 AND source = 'pipeline' AND task_id IS NOT NULL
            AND status IN ('built', 'accepted')) AS built,
       (SELECT count(*) FROM tasks WHERE iteration = 0 AND source = 'pipeline'
            AND status IN ('error', 'rejected')) AS authoring_failed,
       (SELECT count(DISTINCT task_id) FROM validations WHERE iteration = 0) AS validated,
       (SELECT count(DISTINCT task_id) FROM validations WHERE iteration = 0 AND accepted) AS accepted,
       (SELECT count(*) FROM rollouts WHERE iteration = 0) AS rollouts,
       (SELECT count(*) FROM rollouts WHERE iteration = 0
            AND status NOT IN ('infra_error', 'sandbox_broken', 'model_error')) AS rollouts_run;
