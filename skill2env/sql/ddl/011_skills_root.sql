-- Upgrade: lakes created before the catalog recorded the root it walked gain the column (a no-op
-- where 010 created it); their rows have none, and authoring falls back to its configured root.
ALTER TABLE skills_versions ADD COLUMN IF NOT EXISTS root VARCHAR;
