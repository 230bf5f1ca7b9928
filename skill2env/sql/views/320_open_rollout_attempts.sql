-- Grain: one row per rollout attempt that started and has not finished: running now, or
-- interrupted (its process died) and waiting to be closed as infra_error by the next run.
CREATE OR REPLACE VIEW open_rollout_attempts AS
SELECT s.* EXCLUDE (event, status, error)
FROM rollout_attempts AS s
WHERE s.event = 'started'
  AND NOT EXISTS (
      SELECT 1 FROM rollout_attempts AS f WHERE f.event = 'finished' AND f.rollout_id = s.rollout_id
  );
