-- Upgrade: lakes created before tasks with unjudgeable judge items were told apart gain the column
-- (a no-op where 350 created it); older rows read as accepted / rejected from `accepted`.
ALTER TABLE validations_versions ADD COLUMN IF NOT EXISTS acceptance VARCHAR;
