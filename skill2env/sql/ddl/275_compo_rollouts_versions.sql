-- Grain: one row per rollout attempt (CompoTask × policy × attempt) per write of a CompoWorld domain.
CREATE TABLE IF NOT EXISTS compo_rollouts_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- the CompoWorld domain
    rollout_id VARCHAR NOT NULL,
    group_id VARCHAR NOT NULL,             -- the attempts of one task in one run (a group)
    attempt_run_id VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,              -- compo_tasks.task_id (a hardened version has its own)
    task_name VARCHAR NOT NULL,
    domain VARCHAR NOT NULL,
    iteration BIGINT NOT NULL,             -- hardening rounds behind the task
    task_digest VARCHAR,
    policy VARCHAR NOT NULL,               -- solver | oracle | partial | nop | script:<name>
    model VARCHAR,
    attempt BIGINT NOT NULL,
    backend VARCHAR NOT NULL,              -- where the services ran: bwrap | in_process
    status VARCHAR NOT NULL,               -- completed | max_turns | max_tokens | agent_timeout | sandbox_broken | model_error | infra_error
    error VARCHAR,
    started_at TIMESTAMPTZ NOT NULL,
    finished_at TIMESTAMPTZ,
    wall_s DOUBLE,
    model_s DOUBLE NOT NULL,
    tool_s DOUBLE NOT NULL,                -- answering meta-tool calls
    sandbox_s DOUBLE NOT NULL,             -- starting and stopping the gateway's host
    turns BIGINT NOT NULL,
    input_tokens BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    tool_calls BIGINT NOT NULL,            -- meta-tool calls
    tool_errors BIGINT NOT NULL,           -- calls answered with an error envelope
    final_message VARCHAR,                 -- the agent's final answer (what output checks read)
    workspace_digest VARCHAR,              -- sha256 of the world's final states
    workspace_path VARCHAR,
    trajectory_path VARCHAR,
    schema_version BIGINT NOT NULL,
    reward DOUBLE,                         -- Σ w·q of the task's rubric; NULL when not scored (infra_error)
    item_results JSON,                     -- rubric item id → 1 / 0
    group_reward DOUBLE,                   -- low-pass-rate group reward among the group's scored attempts
    advantage DOUBLE,
    chain VARCHAR[],
    services VARCHAR[],                    -- the task's services
    world_services VARCHAR[],              -- every service the agent could see (distractors included)
    capability_tags VARCHAR[],
    services_called VARCHAR[],             -- services the agent called tools of, in first-call order
    meta_tool_calls JSON,                  -- calls per meta-tool
    trajectory JSON                        -- the whole Trajectory (steps, tool calls, observations)
);
