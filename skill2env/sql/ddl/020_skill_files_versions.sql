-- Grain: one row per file of a skill folder per catalog write (symlinks listed, never followed).
CREATE TABLE IF NOT EXISTS skill_files_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,
    skill_id VARCHAR NOT NULL,
    skill_path VARCHAR NOT NULL,           -- the skill folder, relative to the skills root
    path VARCHAR NOT NULL,                 -- the file, relative to the skill folder
    size BIGINT,
    sha256 VARCHAR,
    kind VARCHAR,                          -- skill_md | script | reference | data | config | template | license | binary | other
    language VARCHAR,
    is_text BOOLEAN,
    is_symlink BOOLEAN,
    symlink_target VARCHAR,
    truncated BOOLEAN,
    status VARCHAR,                        -- ok | skipped | unreadable
    reason VARCHAR
);
