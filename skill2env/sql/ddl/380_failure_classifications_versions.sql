-- Grain: one row per (rollout, failed rubric item) per write of a partition (`<domain>@i<k>`): why
-- the item failed, as the verification agent classified it.
CREATE TABLE IF NOT EXISTS failure_classifications_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,
    rollout_id VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,
    iteration BIGINT NOT NULL,
    domain VARCHAR NOT NULL,
    item_id VARCHAR NOT NULL,
    classification VARCHAR NOT NULL,       -- agent_failure | evaluator_defect | missing_material
    decided_by VARCHAR NOT NULL,           -- rules | verifier:<model>
    evidence VARCHAR NOT NULL              -- why: the rule that fired, the facts looked for, the model's justification
);
