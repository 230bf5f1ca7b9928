-- Grain: one row per task version (or attempt at one) per write of a partition: a domain for the
-- pipeline, `import:<folder>` for Harbor directories read by `skill2env import harbor`.
CREATE TABLE IF NOT EXISTS tasks_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,
    task_id VARCHAR,                       -- <task_name>-i<iteration>; NULL when nothing was authored
    task_name VARCHAR,
    iteration BIGINT NOT NULL,
    status VARCHAR NOT NULL,               -- built | rejected | error | skipped | accepted
    reasons VARCHAR[] NOT NULL,            -- why rejected / error / skipped (check.code: message)
    skill_id VARCHAR,
    skill_path VARCHAR,
    domain VARCHAR,
    patterns VARCHAR[] NOT NULL,
    blueprint_digest VARCHAR,
    task_digest VARCHAR,                   -- sha256 of the task directory (paths + bytes)
    store_path VARCHAR,                    -- objects/sha256/<aa>/<digest>, relative to the home
    workspace_files BIGINT NOT NULL,
    formats VARCHAR[] NOT NULL,            -- file formats of the initial workspace
    author VARCHAR,
    source VARCHAR NOT NULL,               -- pipeline | import:<folder>
    environment VARCHAR,                   -- dockerfile | setup_script | docker_image
    rubric VARCHAR,                        -- the rubric as JSON
    leak_checked BIGINT,                   -- author-only / inferable values searched for
    leak_leaked BIGINT,                    -- of those, found where the agent can read them
    findings VARCHAR NOT NULL,             -- every author-side finding, as JSON
    schema_version BIGINT NOT NULL
);
