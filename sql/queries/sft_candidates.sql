-- Grain: one row per SFT example whose reward exceeds $min_reward, from a completed rollout whose
-- verification scored it (infrastructure errors on either side never qualify), of a task that no
-- hardening round flagged as defective — by id, or by content: a defective task is carried unchanged
-- into the next iteration under a new id, and its copies are just as defective.
WITH defective AS (
    SELECT h.task_id, t.task_digest
    FROM hardening_rounds AS h
    LEFT JOIN tasks AS t USING (task_id)
    WHERE h.outcome = 'defective'
)
SELECT e.*
FROM sft_examples AS e
JOIN rollout_rewards AS r USING (rollout_id)
JOIN rollouts AS o USING (rollout_id)
WHERE e.reward > $min_reward
  AND r.verification = 'scored'
  AND o.status = 'completed'
  AND NOT EXISTS (SELECT 1 FROM defective AS d WHERE d.task_id = e.task_id OR d.task_digest = e.task_digest)
ORDER BY e.iteration, e.task_id, e.rollout_id;
