-- Grain: one row per skill per curation write of one domain partition.
CREATE TABLE IF NOT EXISTS curated_skills_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- the domain
    skill_id VARCHAR NOT NULL,
    path VARCHAR NOT NULL,
    domain VARCHAR NOT NULL,
    parsed BOOLEAN NOT NULL,               -- frontmatter parsed as a mapping, with a name and a description
    practical VARCHAR NOT NULL,            -- pass | fail | undecided
    practical_reasons VARCHAR[],
    compatible VARCHAR NOT NULL,
    compatible_reasons VARCHAR[],
    feasible VARCHAR NOT NULL,
    feasible_reasons VARCHAR[],
    safe VARCHAR NOT NULL,
    safe_reasons VARCHAR[],
    curated BOOLEAN NOT NULL,
    verdict VARCHAR,                       -- kept (= curated) | rejected | undecided
    reasons VARCHAR[],                     -- every failing and undecided reason, in criterion order
    verdicts JSON,                         -- full verdicts with evidence and who decided
    schema_version BIGINT
);
