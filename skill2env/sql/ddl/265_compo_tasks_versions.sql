-- Grain: one row per cross-service task (or skipped walk) of a CompoWorld domain per write.
CREATE TABLE IF NOT EXISTS compo_tasks_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- the CompoWorld domain the walks start in
    task_id VARCHAR NOT NULL,              -- sha256 of the task's content
    domain VARCHAR NOT NULL,
    status VARCHAR NOT NULL,               -- ok | skipped (a simulated tool and no world model)
    skip_reason VARCHAR,
    chain VARCHAR[],                       -- the tool keys of the walk, in order
    services VARCHAR[],
    length BIGINT NOT NULL,
    goal VARCHAR,                          -- the user request
    capability_tags VARCHAR[],             -- cross_service, sequential_dependency, cross_environment_constraint, …
    rubric_items BIGINT,
    simulated_steps BIGINT,                -- world-model answers the oracle run used
    oracle_score DOUBLE,                   -- replay of the oracle: 1
    nop_score DOUBLE,                      -- replay doing nothing
    partial_score DOUBLE,                  -- replay of the oracle's first half
    seed BIGINT,                           -- the universe seed of the initial states
    task JSON,                             -- the whole CompoTask: initial states, oracle, rubric, …
    schema_version BIGINT
);
