-- Grain: one row per edge of the tool dependency graph per write of the graph.
CREATE TABLE IF NOT EXISTS service_graph_edges_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- ''
    source VARCHAR NOT NULL,               -- tool key
    target VARCHAR NOT NULL,               -- tool key
    source_service VARCHAR NOT NULL,
    target_service VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,                 -- data (output type → input type) | state (write → read)
    via VARCHAR NOT NULL,                  -- the interface type, or the state field
    parameter VARCHAR,                     -- data: the target's parameter that takes the value
    cross_service BOOLEAN NOT NULL
);
