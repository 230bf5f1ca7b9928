-- Grain: one row per task blueprint (task name, hardening iteration) per write of a domain partition.
CREATE TABLE IF NOT EXISTS blueprints_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- the domain
    task_name VARCHAR NOT NULL,
    iteration BIGINT NOT NULL,             -- hardening iteration, 0 for the first draft
    blueprint_digest VARCHAR NOT NULL,     -- sha256 of the blueprint's canonical JSON
    parent_digest VARCHAR,                 -- the blueprint it was revised from (iteration > 0)
    proposal_id VARCHAR,                   -- the hardening proposal that revised it
    skill_id VARCHAR NOT NULL,
    skill_name VARCHAR NOT NULL,
    skill_path VARCHAR NOT NULL,
    domain VARCHAR NOT NULL,
    patterns VARCHAR[] NOT NULL,           -- pattern ids of its challenges
    n_challenges BIGINT NOT NULL,
    n_facts BIGINT NOT NULL,
    n_rubric_items BIGINT NOT NULL,
    author VARCHAR NOT NULL,               -- offline:<kit> | model:<name>
    blueprint VARCHAR NOT NULL,            -- the blueprint as JSON (author-only facts included)
    schema_version BIGINT NOT NULL
);
