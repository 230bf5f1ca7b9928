-- Grain: one row per (task, hack-probe strategy) per write of a partition, written beside
-- `validations` by the same stage (`<domain>@i<k>`).
CREATE TABLE IF NOT EXISTS hack_probes_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,
    iteration BIGINT NOT NULL,
    domain VARCHAR NOT NULL,
    strategy VARCHAR NOT NULL,             -- skill2env.validation.hack_probes.strategies
    family VARCHAR NOT NULL,               -- fake_content | malformed | link_escape | path_hijack | ...
    status VARCHAR NOT NULL,               -- passed (resisted) | failed (beaten) | infra_error
    reward DOUBLE,                         -- deterministic reward the strategy earned
    items_passed JSON,                     -- rubric item ids the strategy passed
    evidence VARCHAR NOT NULL,
    rollout_id VARCHAR,
    backend VARCHAR NOT NULL
);
