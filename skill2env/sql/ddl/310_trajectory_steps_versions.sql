-- Grain: one row per step (system prompt, user message, agent turn) of a rollout, per write of a
-- domain partition; shaped after ATIF's steps.
CREATE TABLE IF NOT EXISTS trajectory_steps_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- the domain
    rollout_id VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,
    step_id BIGINT NOT NULL,               -- 1-based
    source VARCHAR NOT NULL,               -- system | user | agent
    timestamp TIMESTAMPTZ NOT NULL,
    model_name VARCHAR,
    message VARCHAR NOT NULL,
    reasoning VARCHAR,
    tool_calls JSON NOT NULL,              -- [{tool_call_id, function_name, arguments}]
    observations JSON NOT NULL,            -- [{source_call_id, content, is_error, exit_code, truncated, duration_s}]
    prompt_tokens BIGINT,
    completion_tokens BIGINT,
    latency_ms DOUBLE,
    repaired BIGINT,                       -- rounds of invalid tool calls the client sent back within the step
    extra JSON NOT NULL
);
