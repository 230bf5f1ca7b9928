-- Grain: one row per committed write of one table partition (the version register of the lake).
-- DuckLake: no sequence, no key constraints. `seq` stays NULL in the table; `latest_materializations`
-- fills it with the committing snapshot's number. write_id is a fresh UUID per write.
CREATE TABLE IF NOT EXISTS materializations (
    seq BIGINT,
    write_id VARCHAR NOT NULL,             -- joins the rows this write appended
    table_name VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- '' for unpartitioned tables, else e.g. the domain
    run_id VARCHAR NOT NULL,               -- the Dagster run (or CLI run) that wrote it
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    row_count BIGINT NOT NULL
);
