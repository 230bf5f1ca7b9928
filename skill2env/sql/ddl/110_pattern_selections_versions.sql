-- Grain: one row per (curated skill, chosen pattern) per write of a domain partition;
-- a skill with no compatible pattern has one row with pattern_id NULL, its status and reason.
CREATE TABLE IF NOT EXISTS pattern_selections_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- the domain
    skill_id VARCHAR NOT NULL,
    path VARCHAR NOT NULL,
    domain VARCHAR NOT NULL,
    status VARCHAR NOT NULL,               -- selected | too_few | no_compatible_pattern
    rank BIGINT,
    pattern_id VARCHAR,
    capability VARCHAR,
    score DOUBLE,
    rationale VARCHAR,
    reason VARCHAR,
    focus VARCHAR[],                       -- the skill traits the task's one goal is about
    skill_traits VARCHAR[],
    candidates BIGINT,                     -- compatible patterns before choosing
    chooser VARCHAR NOT NULL,              -- rules | model:<name>
    notes VARCHAR[],
    pool_digest VARCHAR NOT NULL
);
