-- Grain: one row per (rollout, flag rule, agent step) per write of a partition: the step touched the
-- verifier's paths, a reward file, or matched a hack strategy's signature (skill2env.agent.flags).
-- Lakes made before flags existed gain the table on their next write (the schema digest changes).
CREATE TABLE IF NOT EXISTS rollout_flags_versions (
    write_id VARCHAR NOT NULL,
    run_id VARCHAR NOT NULL,
    materialized_at TIMESTAMPTZ NOT NULL,
    code_version VARCHAR NOT NULL,
    partition_key VARCHAR NOT NULL,        -- the rollouts' partition (`<domain>@i<k>`, or the domain)
    rollout_id VARCHAR NOT NULL,
    task_id VARCHAR NOT NULL,
    iteration BIGINT NOT NULL,
    domain VARCHAR NOT NULL,
    policy VARCHAR NOT NULL,
    attempt BIGINT NOT NULL,
    step_id BIGINT NOT NULL,               -- the agent step, as in trajectory_steps
    rule VARCHAR NOT NULL,                 -- verifier_path | reward_file | interpreter_hook | shadow_executable | …
    detail VARCHAR NOT NULL,               -- the matched text with some context (bounded)
    severity VARCHAR NOT NULL              -- high | medium
);
