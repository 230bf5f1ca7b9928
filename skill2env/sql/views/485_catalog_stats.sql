-- Grain: one row per (scope, statistic): the paper's catalog statistics over all skills, the curated
-- ones, and the ones behind an accepted iteration-0 task (`tasked`: the task set's skills).
CREATE OR REPLACE VIEW catalog_stats AS
WITH scoped AS (
    SELECT 'all' AS scope, s.* FROM skills AS s
    UNION ALL BY NAME
    SELECT 'curated' AS scope, s.*
    FROM skills AS s JOIN curated_skills AS c ON c.skill_id = s.skill_id AND c.path = s.path
    WHERE c.curated
    UNION ALL BY NAME
    SELECT 'tasked' AS scope, s.*
    FROM skills AS s
    WHERE (s.skill_id, s.path) IN (SELECT (skill_id, skill_path) FROM accepted_tasks WHERE iteration = 0)
),
files AS (
    SELECT sc.scope, f.*
    FROM scoped AS sc JOIN skill_files AS f ON f.skill_id = sc.skill_id AND f.skill_path = sc.path
),
deps AS (
    SELECT scope, unnest(dependencies, recursive := true) FROM scoped
)
SELECT scope, 'skills' AS statistic, count(*) AS value FROM scoped GROUP BY scope
UNION ALL SELECT scope, 'domains', count(DISTINCT domain) FROM scoped GROUP BY scope
UNION ALL SELECT scope, 'skill_files', count(*) FROM files GROUP BY scope
UNION ALL SELECT scope, 'languages', count(DISTINCT language) FROM files
    WHERE kind NOT IN ('skill_md', 'data', 'license') GROUP BY scope
UNION ALL SELECT scope, 'programs', count(DISTINCT p) FROM (SELECT scope, unnest(programs) AS p FROM scoped)
    GROUP BY scope
UNION ALL SELECT scope, 'ecosystems', count(DISTINCT ecosystem) FROM deps GROUP BY scope
UNION ALL SELECT scope, 'dependencies', count(DISTINCT (ecosystem, name)) FROM deps GROUP BY scope
UNION ALL SELECT scope, 'cli_tools', count(DISTINCT t) FROM (SELECT scope, unnest(cli_tools) AS t FROM scoped)
    GROUP BY scope
UNION ALL SELECT scope, 'env_vars', count(DISTINCT e) FROM (SELECT scope, unnest(env_vars) AS e FROM scoped)
    GROUP BY scope
ORDER BY scope, statistic;
