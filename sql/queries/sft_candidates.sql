-- Grain: one row per SFT example whose reward exceeds $min_reward, from a completed rollout of an
-- accepted task that no hardening round flagged as defective (infrastructure errors never qualify).
SELECT e.*
FROM sft_examples AS e
JOIN rollout_rewards AS r USING (rollout_id)
WHERE e.reward > $min_reward
  AND r.verification = 'scored'
  AND e.task_id NOT IN (SELECT task_id FROM hardening_rounds WHERE outcome = 'defective')
ORDER BY e.iteration, e.task_id, e.rollout_id;
