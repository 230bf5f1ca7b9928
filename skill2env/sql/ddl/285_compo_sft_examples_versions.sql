-- Grain: one row per SFT example (a completed, scored CompoWorld rollout) per write of a CompoWorld domain.
CREATE TABLE IF NOT EXISTS compo_sft_examples_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- the CompoWorld domain
    example_id VARCHAR NOT NULL,           -- = the rollout id
    rollout_id VARCHAR NOT NULL,
    group_id VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,
    iteration BIGINT NOT NULL,
    domain VARCHAR NOT NULL,
    policy VARCHAR NOT NULL,
    model VARCHAR,
    reward DOUBLE NOT NULL,                -- the rubric score
    group_reward DOUBLE,
    turns BIGINT,
    services VARCHAR[],                    -- the task's services
    world_services VARCHAR[],              -- every service of its world (distractors included)
    services_called VARCHAR[],
    capability_tags VARCHAR[],
    chain VARCHAR[],
    length BIGINT,                         -- tools in the chain
    tool_calls BIGINT,                     -- meta-tool calls in all
    list_services_calls BIGINT,
    list_tools_calls BIGINT,
    describe_tool_calls BIGINT,
    call_tool_calls BIGINT,
    tool_errors BIGINT,
    messages JSON NOT NULL,                -- OpenAI chat messages (tool-call arguments as JSON strings)
    tools JSON NOT NULL,                   -- the four meta-tools' JSON schemas
    metadata JSON NOT NULL,                -- the sample's metadata as one object (services, domain, tags, score, counts)
    schema_version BIGINT NOT NULL
);
