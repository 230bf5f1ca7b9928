-- Upgrade: lakes created before an undecided skill was told apart from a rejected one gain the
-- column (a no-op where 030 created it); older rows read their verdict from the criteria (view 030).
ALTER TABLE curated_skills_versions ADD COLUMN IF NOT EXISTS verdict VARCHAR;
