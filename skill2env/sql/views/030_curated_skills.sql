-- Grain: one row per skill of the newest catalog: the newest curation of its domain partition.
-- `verdict`: kept (= curated), rejected (unparsed, a duplicate, or a criterion failed), or undecided
-- (nothing failed, a criterion stayed undecided); rows written before the column read it from the criteria.
CREATE OR REPLACE VIEW curated_skills AS
SELECT v.* EXCLUDE (write_id, partition_key, verdict),
       coalesce(v.verdict, CASE
           WHEN v.curated THEN 'kept'
           WHEN v.parsed AND 'fail' NOT IN (v.practical, v.compatible, v.feasible, v.safe)
               AND 'undecided' IN (v.practical, v.compatible, v.feasible, v.safe) THEN 'undecided'
           ELSE 'rejected'
       END) AS verdict,
       s.name, s.source
FROM curated_skills_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'curated_skills' AND m.write_id = v.write_id
JOIN skills AS s
    ON s.skill_id = v.skill_id AND s.path = v.path;
