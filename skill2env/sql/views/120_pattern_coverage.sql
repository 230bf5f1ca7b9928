-- Grain: one row per capability: the pool's patterns, how often selections use them, which never.
CREATE OR REPLACE VIEW pattern_coverage AS
WITH uses AS (
    SELECT pattern_id, count(*) AS selections, count(DISTINCT skill_id) AS skills
    FROM pattern_selections
    WHERE pattern_id IS NOT NULL
    GROUP BY pattern_id
)
SELECT l.capability,
       count(*) AS patterns,
       count(u.pattern_id) AS patterns_selected,
       count(*) - count(u.pattern_id) AS patterns_never_selected,
       coalesce(sum(u.selections), 0)::BIGINT AS selections,
       list(l.id ORDER BY l.id) FILTER (WHERE u.pattern_id IS NULL) AS never_selected
FROM pattern_library AS l
LEFT JOIN uses AS u ON u.pattern_id = l.id
GROUP BY l.capability
ORDER BY l.capability;
