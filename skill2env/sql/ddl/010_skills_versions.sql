-- Grain: one row per skill folder per catalog write (append-only; the `skills` view shows the newest).
CREATE TABLE IF NOT EXISTS skills_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,
    skill_id VARCHAR NOT NULL,             -- content digest of the folder
    source VARCHAR NOT NULL,               -- first path component under the skills root
    path VARCHAR NOT NULL,                 -- folder relative to the skills root
    root VARCHAR,                          -- the skills root the catalog walked (absolute)
    skill_md_file VARCHAR NOT NULL,
    status VARCHAR NOT NULL,               -- ok | no_frontmatter | frontmatter_error | unreadable | error
    reason VARCHAR,
    nested_in VARCHAR,
    domain VARCHAR,
    name VARCHAR,
    description VARCHAR,
    frontmatter_raw VARCHAR USING COMPRESSION zstd,
    frontmatter JSON,
    skill_md_text VARCHAR USING COMPRESSION zstd,   -- zstd: ~30 % faster to write than the default for long texts
    skill_md_size BIGINT,
    body_chars BIGINT,
    text_encoding VARCHAR,
    spec_findings STRUCT(code VARCHAR, severity VARCHAR, message VARCHAR)[],
    clawhub_key VARCHAR,
    requires_bins VARCHAR[],
    requires_any_bins VARCHAR[],
    requires_env VARCHAR[],
    requires_config VARCHAR[],
    supported_os VARCHAR[],
    install JSON,
    primary_env VARCHAR,
    languages VARCHAR[],
    programs VARCHAR[],
    cli_tools VARCHAR[],
    dependencies STRUCT(ecosystem VARCHAR, name VARCHAR, source VARCHAR)[],
    env_vars VARCHAR[],
    signals STRUCT(code VARCHAR, file VARCHAR, line BIGINT, excerpt VARCHAR)[],
    n_files BIGINT,
    total_bytes BIGINT,
    inventory_truncated BOOLEAN,
    schema_version BIGINT
);
