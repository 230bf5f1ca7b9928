-- Grain: one row per rollout attempt (task × policy × attempt) per write of a domain partition.
CREATE TABLE IF NOT EXISTS rollouts_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- the domain
    rollout_id VARCHAR NOT NULL,
    group_id VARCHAR NOT NULL,             -- the attempts of one task in one run (a group)
    attempt_run_id VARCHAR NOT NULL,       -- the run that executed it (a recovered attempt: the killed run)
    task_id VARCHAR NOT NULL,
    task_name VARCHAR NOT NULL,
    domain VARCHAR NOT NULL,
    iteration BIGINT NOT NULL,
    task_digest VARCHAR,
    policy VARCHAR NOT NULL,               -- oracle | nop | partial | solver | script:<name>
    model VARCHAR,                         -- the solver's model; NULL for scripted policies
    attempt BIGINT NOT NULL,               -- 1..k within the group
    backend VARCHAR NOT NULL,              -- docker | bwrap
    sandbox_mode VARCHAR,                  -- how it ran: bwrap:image-rootfs | docker:attach | docker:exec-fallback | …
    status VARCHAR NOT NULL,               -- completed | max_turns | max_tokens | agent_timeout | sandbox_broken | model_error | infra_error
    error VARCHAR,
    started_at TIMESTAMPTZ NOT NULL,
    finished_at TIMESTAMPTZ,
    wall_s DOUBLE,                         -- the whole attempt, sandbox start and stop included
    model_s DOUBLE NOT NULL,               -- waiting for the model
    tool_s DOUBLE NOT NULL,                -- running tool calls
    sandbox_s DOUBLE NOT NULL,             -- waiting for its start (not hidden behind the model), snapshot, stop
    turns BIGINT NOT NULL,                 -- agent steps
    input_tokens BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    tool_calls BIGINT NOT NULL,
    tool_errors BIGINT NOT NULL,           -- calls that failed as calls (bad arguments, missing path, killed)
    final_message VARCHAR,
    workspace_digest VARCHAR,              -- sha256 of the final workspace (paths + bytes)
    workspace_path VARCHAR,                -- its snapshot: objects/sha256/<aa>/<digest>, relative to the home
    trajectory_path VARCHAR,               -- the ATIF file: trajectories/<rollout_id>/trajectory.json
    schema_version BIGINT NOT NULL
);
