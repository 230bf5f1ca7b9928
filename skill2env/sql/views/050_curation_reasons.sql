-- Grain: one row per (criterion, reason code): how many skills of the newest curation it rejected.
CREATE OR REPLACE VIEW curation_reasons AS
WITH reasons AS (
    SELECT 'practical' AS criterion, unnest(practical_reasons) AS reason, skill_id FROM curated_skills
    UNION ALL
    SELECT 'compatible', unnest(compatible_reasons), skill_id FROM curated_skills
    UNION ALL
    SELECT 'feasible', unnest(feasible_reasons), skill_id FROM curated_skills
    UNION ALL
    SELECT 'safe', unnest(safe_reasons), skill_id FROM curated_skills
)
SELECT
    criterion,
    reason,
    split_part(reason, ':', 1) AS family,
    count(DISTINCT skill_id) AS skills
FROM reasons
GROUP BY ALL
ORDER BY skills DESC, criterion, reason;
