-- Grain: one row per domain plus a total row ('*'): skills left after each cumulative curation stage,
-- then how the judged skills split by verdict (`curated` = kept; `undecided` is counted, never rejected).
CREATE OR REPLACE VIEW curation_funnel AS
WITH staged AS (
    SELECT
        s.domain,
        c.skill_id IS NOT NULL AS curated_known,
        coalesce(c.parsed, false) AS parsed,
        coalesce(c.parsed AND c.practical = 'pass', false) AS practical,
        coalesce(c.parsed AND c.practical = 'pass' AND c.compatible = 'pass', false) AS compatible,
        coalesce(c.parsed AND c.practical = 'pass' AND c.compatible = 'pass' AND c.feasible = 'pass', false)
            AS feasible,
        coalesce(
            c.parsed AND c.practical = 'pass' AND c.compatible = 'pass' AND c.feasible = 'pass'
            AND c.safe = 'pass', false
        ) AS safe,
        coalesce(c.curated, false) AS curated,
        c.verdict
    FROM skills AS s
    LEFT JOIN curated_skills AS c ON c.skill_id = s.skill_id AND c.path = s.path
)
SELECT
    coalesce(domain, '*') AS domain,
    count(*) AS found,
    count(*) FILTER (WHERE curated_known) AS judged,
    count(*) FILTER (WHERE parsed) AS parsed,
    count(*) FILTER (WHERE practical) AS practical,
    count(*) FILTER (WHERE compatible) AS compatible,
    count(*) FILTER (WHERE feasible) AS feasible,
    count(*) FILTER (WHERE safe) AS safe,
    count(*) FILTER (WHERE curated) AS curated,
    round(100.0 * count(*) FILTER (WHERE curated) / count(*), 1) AS curated_pct,
    count(*) FILTER (WHERE verdict = 'undecided') AS undecided,
    count(*) FILTER (WHERE verdict = 'rejected') AS rejected
FROM staged
GROUP BY ROLLUP (domain)
ORDER BY domain IS NULL, found DESC, domain;
