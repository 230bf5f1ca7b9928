-- Grain: one row per (task, gate) of the newest validation of each partition. `acceptance` is
-- `accepted_without_judge` for a task whose judge items nobody can score (rows of older lakes derive it).
CREATE OR REPLACE VIEW validations AS
SELECT v.* EXCLUDE (write_id, acceptance),
       coalesce(v.acceptance, CASE WHEN v.accepted THEN 'accepted' ELSE 'rejected' END) AS acceptance
FROM validations_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'validations' AND m.write_id = v.write_id;
