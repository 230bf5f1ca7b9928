-- Grain: one row per attempt at a current CompoTask (`compo_rollouts`): its status, reward, the
-- low-pass-rate group reward and advantage of its group, and the task's services — what an RL trainer
-- weighs the CompoWorld tasks by.
SELECT rollout_id, group_id, task_id, task_digest, domain, iteration, policy, model, attempt, backend, status,
       reward, group_reward, advantage, services, capability_tags
FROM compo_rollouts
ORDER BY domain, task_id, policy, attempt, rollout_id;
