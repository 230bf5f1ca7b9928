-- Grain: one row per task considered for hardening after iteration k, per write of `<domain>@i<k>`.
CREATE TABLE IF NOT EXISTS hardening_rounds_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,              -- the parent task version (iteration k)
    family VARCHAR NOT NULL,               -- the iteration-0 task it descends from
    iteration BIGINT NOT NULL,             -- k: the parent's iteration
    domain VARCHAR NOT NULL,
    trigger_reward DOUBLE,                 -- mean reward of the solver's group of attempts
    triggered BOOLEAN NOT NULL,
    outcome VARCHAR NOT NULL,              -- hardened | kept | rejected | defective | no_rollouts
    reason VARCHAR NOT NULL,
    diagnosis JSON,                        -- per challenge: exercised / solved easily / bypassed, with evidence
    proposal JSON,                         -- what to strengthen or add
    revision_diff JSON,                    -- the blueprint's structured diff
    child_task_id VARCHAR,                 -- the hardened version (iteration k + 1), when built
    child_status VARCHAR,                  -- its status after the author-side checks
    patterns_before VARCHAR[],
    patterns_after VARCHAR[],
    grown_patterns VARCHAR[],              -- new pool patterns abstracted from this diagnosis
    child_gates JSON                       -- the hardened child's validation gates (accepted, failing, evidence)
);
