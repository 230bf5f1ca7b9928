-- Grain: one row per pattern of the newest pool: which world kits build it offline (each kit builds
-- its patterns at intensities 1-3) — what a run without a model endpoint can exercise.
--   SELECT count(*) FILTER (WHERE buildable) FROM pattern_buildability
CREATE OR REPLACE VIEW pattern_buildability AS
SELECT id AS pattern_id, name, capability, origin,
       coalesce(built_by, []) AS kits,
       len(coalesce(built_by, [])) > 0 AS buildable,
       CASE WHEN len(coalesce(built_by, [])) > 0 THEN [1, 2, 3] ELSE [] END AS intensities
FROM pattern_library
ORDER BY buildable DESC, capability, pattern_id;
