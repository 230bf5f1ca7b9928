-- Upgrade: lakes created before hardened children were validated inside the hardening stage gain
-- the column (a no-op where 450 created it).
ALTER TABLE hardening_rounds_versions ADD COLUMN IF NOT EXISTS child_gates JSON;
