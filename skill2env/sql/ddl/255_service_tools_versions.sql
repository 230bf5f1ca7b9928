-- Grain: one row per tool of every service per write of the service graph.
CREATE TABLE IF NOT EXISTS service_tools_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- ''
    tool_key VARCHAR NOT NULL,             -- <service>.<tool>
    service VARCHAR NOT NULL,
    tool VARCHAR NOT NULL,
    domain VARCHAR NOT NULL,
    description VARCHAR NOT NULL,
    simulated BOOLEAN NOT NULL,            -- answered by the world model
    read_only BOOLEAN NOT NULL,
    reads VARCHAR[],                       -- state fields read
    writes VARCHAR[],                      -- state fields written
    input_types VARCHAR[],                 -- interface types of its parameters
    output_types VARCHAR[],                -- interface types in its result
    errors VARCHAR[],                      -- error types it may return
    intent VARCHAR NOT NULL,               -- how a user asks for it (goal template)
    component BIGINT NOT NULL,             -- weakly connected component of the graph (0 = largest)
    out_degree BIGINT NOT NULL,
    in_degree BIGINT NOT NULL,
    spec JSON NOT NULL,                    -- the whole ToolSpec (parameters and result JSON schemas)
    schema_version BIGINT
);
