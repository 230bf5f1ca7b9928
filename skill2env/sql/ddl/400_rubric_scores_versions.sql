-- Grain: one row per (rollout, rubric item) per write of a partition (`<domain>@i<k>`); a rollout
-- whose verification failed for infrastructure reasons has one row with item_id NULL.
CREATE TABLE IF NOT EXISTS rubric_scores_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,
    rollout_id VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,
    iteration BIGINT NOT NULL,
    domain VARCHAR NOT NULL,
    policy VARCHAR NOT NULL,
    attempt BIGINT NOT NULL,
    verification VARCHAR NOT NULL,         -- scored | infra_error
    reward DOUBLE,                         -- Σ w·q over every item, unscored items counting 0
    raw_reward DOUBLE,
    scored_weight DOUBLE,
    full_credit BOOLEAN,                   -- complete and reward >= FULL_CREDIT_AT (an incomplete attempt never is)
    flags VARCHAR[],                       -- unscored | item_errors | incomplete
    item_id VARCHAR,
    method VARCHAR,                        -- deterministic | llm_judge
    weight DOUBLE,
    status VARCHAR,                        -- passed | failed | error | unscored
    q DOUBLE,
    evidence JSON,
    error VARCHAR,
    isolation VARCHAR                      -- fresh | in_place
);
