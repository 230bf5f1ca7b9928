-- Grain: one row per requested domain ($domains) that has skills in the newest catalog: how many.
SELECT domain, count(*) AS skills FROM skills WHERE list_contains($domains, domain) GROUP BY domain ORDER BY domain;
