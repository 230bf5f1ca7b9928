-- Grain: one row per event of a rollout attempt (append-only log): `started` before its sandbox
-- starts, `finished` when it ends. A `started` without `finished` whose process died is an
-- interrupted attempt, closed as infra_error by the next run.
CREATE TABLE IF NOT EXISTS rollout_attempts (
    event VARCHAR NOT NULL,                -- started | finished
    recorded_at TIMESTAMPTZ NOT NULL,
    rollout_id VARCHAR NOT NULL,
    group_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    owner VARCHAR NOT NULL,                -- the process running it: <boot id>:<pid>:<start time>
    task_id VARCHAR NOT NULL,
    task_name VARCHAR NOT NULL,
    domain VARCHAR NOT NULL,
    iteration BIGINT NOT NULL,
    task_digest VARCHAR,
    policy VARCHAR NOT NULL,
    model VARCHAR,
    attempt BIGINT NOT NULL,
    backend VARCHAR NOT NULL,
    status VARCHAR NOT NULL,               -- started, or the final status
    error VARCHAR,
    trajectory_path VARCHAR
);
