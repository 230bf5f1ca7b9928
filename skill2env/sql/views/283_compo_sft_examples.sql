-- Grain: one row per CompoWorld SFT example of the newest write of each CompoWorld domain.
CREATE OR REPLACE VIEW compo_sft_examples AS
SELECT v.* EXCLUDE (write_id)
FROM compo_sft_examples_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'compo_sft_examples' AND m.write_id = v.write_id;
