-- Grain: one row per skill of the newest catalog in the requested domains ($domains), every column curation reads.
SELECT * FROM skills WHERE list_contains($domains, domain) ORDER BY domain, path;
