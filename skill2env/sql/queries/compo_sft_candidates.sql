-- Grain: one row per CompoWorld SFT example (a completed, scored attempt at a current CompoTask) whose
-- reward exceeds $min_reward, in the SFT export's columns: no skill behind it (skill_id, skill_path and
-- blueprint_digest are NULL), `source` 'compoworld', and the services of its task.
SELECT e.example_id, e.rollout_id, e.task_id, e.iteration, e.domain,
       CAST(NULL AS VARCHAR) AS skill_id, CAST(NULL AS VARCHAR) AS skill_path,
       CAST(NULL AS VARCHAR) AS blueprint_digest, r.task_digest, e.policy, e.model, e.reward, e.turns,
       'compoworld' AS source, e.services,
       CAST(e.messages AS VARCHAR) AS messages, CAST(e.tools AS VARCHAR) AS tools
FROM compo_sft_examples AS e
LEFT JOIN compo_rollouts AS r USING (rollout_id)
WHERE e.reward > $min_reward
ORDER BY e.domain, e.iteration, e.task_id, e.example_id;
