-- Grain: one row per pattern per write of the pool (seed files + accepted additions).
CREATE TABLE IF NOT EXISTS pattern_library_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- '' (one pool)
    id VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    capability VARCHAR NOT NULL,           -- environment_understanding | planning | skill_use | long_horizon_consistency | error_recovery
    description VARCHAR NOT NULL,
    origin VARCHAR NOT NULL,               -- seed | hardening
    parent VARCHAR,                        -- hardening: the pattern it came from
    diagnosis VARCHAR,                     -- hardening: the diagnosis it came from
    version BIGINT NOT NULL,
    traits VARCHAR[],                      -- required of a skill
    affinity VARCHAR[],                    -- raise the fit
    conflicts VARCHAR[],
    source VARCHAR,                        -- the data file, or diagnosis:<id>
    built_by VARCHAR[],                    -- the world kits that build it offline (each at intensities 1-3)
    pattern JSON NOT NULL,                 -- the whole validated pattern
    pool_digest VARCHAR NOT NULL,
    schema_version BIGINT
);
