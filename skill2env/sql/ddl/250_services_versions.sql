-- Grain: one row per CompoWorld service per write of the service catalog (with its verification).
CREATE TABLE IF NOT EXISTS services_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- '' (one catalog)
    service VARCHAR NOT NULL,
    domain VARCHAR NOT NULL,               -- commerce | office | communication | operations
    description VARCHAR NOT NULL,
    module VARCHAR NOT NULL,               -- the Python module defining it
    tools BIGINT NOT NULL,
    simulated_tools BIGINT NOT NULL,       -- tools answered by the world model
    state_fields VARCHAR[],
    state_schema JSON NOT NULL,            -- JSON schema of the typed state
    status VARCHAR NOT NULL,               -- verified | failed | error (infrastructure) | unverified
    verified BOOLEAN NOT NULL,             -- its own tests ran in the sandbox and passed
    backend VARCHAR,                       -- bwrap | subprocess: where the tests ran
    runner VARCHAR,                        -- pytest | stdlib
    tests_passed BIGINT,
    tests_failed BIGINT,
    verify_seconds DOUBLE,
    verify_output VARCHAR,                 -- the tail of the test run's output
    verified_at TIMESTAMPTZ,
    schema_version BIGINT
);
