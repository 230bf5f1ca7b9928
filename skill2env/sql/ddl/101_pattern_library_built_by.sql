-- Upgrade: lakes created before the pool recorded which world kits build each pattern gain the
-- column (a no-op where 100 created it); their rows read as built by no kit until the pool is written again.
ALTER TABLE pattern_library_versions ADD COLUMN IF NOT EXISTS built_by VARCHAR[];
