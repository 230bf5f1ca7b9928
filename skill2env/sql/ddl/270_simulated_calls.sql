-- Grain: one row per attempt of the world model at a simulated tool call (append-only log).
CREATE TABLE IF NOT EXISTS simulated_calls (
    call_id VARCHAR NOT NULL,              -- one call; several attempts when answers were rejected
    called_at TIMESTAMPTZ NOT NULL,
    service VARCHAR NOT NULL,
    tool VARCHAR NOT NULL,
    attempt BIGINT NOT NULL,
    accepted BOOLEAN NOT NULL,
    arguments JSON,
    result JSON,
    state_delta JSON,                      -- the JSON merge patch of the state
    error VARCHAR,                         -- why it was rejected (or that no model was configured)
    model VARCHAR,
    run_id VARCHAR,
    partition_key VARCHAR
);
