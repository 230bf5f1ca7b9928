-- Grain: one row per SFT example of the newest write of each partition.
CREATE OR REPLACE VIEW sft_examples AS
SELECT v.* EXCLUDE (write_id)
FROM sft_examples_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'sft_examples' AND m.write_id = v.write_id;
