-- Grain: one row per requested domain ($domains): its curation funnel.
SELECT * FROM curation_funnel WHERE list_contains($domains, domain) ORDER BY found DESC, domain;
