-- Grain: one row per skill of the newest catalog in one domain ($domain), every column curation reads.
SELECT * FROM skills WHERE domain = $domain ORDER BY path;
