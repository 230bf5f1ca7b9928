-- Grain: one row per file of a stored task directory per write of a partition (as `tasks_versions`).
CREATE TABLE IF NOT EXISTS task_files_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,
    task_digest VARCHAR NOT NULL,
    path VARCHAR NOT NULL,                 -- relative to the task directory
    area VARCHAR NOT NULL,                 -- task | instruction | environment | workspace | skill | tests | solution
    size BIGINT NOT NULL,
    sha256 VARCHAR NOT NULL,
    format VARCHAR NOT NULL                -- lower-case extension, `none` without one
);
