-- Grain: one row per (task, gate) per write of a partition (`<domain>` for iteration 0,
-- `<domain>@i<k>` for hardening iteration k).
CREATE TABLE IF NOT EXISTS validations_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,
    iteration BIGINT NOT NULL,
    domain VARCHAR NOT NULL,
    gate VARCHAR NOT NULL,                 -- oracle | nop | partial | leak | judge
    status VARCHAR NOT NULL,               -- passed | failed | skipped | unjudged | infra_error
    reward DOUBLE,                         -- the scripted run's deterministic reward (leak: values leaked)
    threshold DOUBLE,
    evidence VARCHAR NOT NULL,
    rollout_id VARCHAR,
    item_rewards JSON,                     -- per rubric item q of the scripted run
    accepted BOOLEAN NOT NULL,             -- the task passed every gate (same on all its rows)
    backend VARCHAR NOT NULL,
    acceptance VARCHAR                     -- accepted | accepted_without_judge | rejected
);
