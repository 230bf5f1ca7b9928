-- Upgrade: lakes created before rollouts recorded how their sandbox ran (so that a backend's
-- fallback is never silent) gain the column (a no-op where 300 created it); older rows read NULL.
ALTER TABLE rollouts_versions ADD COLUMN IF NOT EXISTS sandbox_mode VARCHAR;
