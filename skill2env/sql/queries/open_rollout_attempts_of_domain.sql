-- Grain: one row per attempt of a domain that started and never finished (see `open_rollout_attempts`).
SELECT *
FROM open_rollout_attempts
WHERE domain = $domain
ORDER BY recorded_at;
