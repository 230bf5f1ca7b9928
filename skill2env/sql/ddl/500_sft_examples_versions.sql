-- Grain: one row per SFT example (a rollout with reward above the threshold) per write of a partition.
CREATE TABLE IF NOT EXISTS sft_examples_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- the domain
    example_id VARCHAR NOT NULL,           -- = the rollout id
    rollout_id VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,
    iteration BIGINT NOT NULL,
    domain VARCHAR NOT NULL,
    skill_id VARCHAR,
    skill_path VARCHAR,
    blueprint_digest VARCHAR,
    task_digest VARCHAR,
    policy VARCHAR NOT NULL,
    model VARCHAR,
    reward DOUBLE NOT NULL,
    turns BIGINT,
    messages JSON NOT NULL,                -- OpenAI chat messages (tool-call arguments as JSON strings)
    tools JSON NOT NULL                    -- the tools' JSON schemas
);
