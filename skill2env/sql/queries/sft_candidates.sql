-- Grain: one row per SFT example whose reward exceeds $min_reward, from a completed rollout whose
-- verification scored every item (infrastructure errors on either side, and incomplete rollouts —
-- a judge item unscored or errored — never qualify), whose trajectory has no row in `rollout_flags`
-- (it touched the verifier's paths or a reward file, or matched a hack strategy), of a task not flagged
-- as defective (`defective_tasks`: by a hardening round or by `task_defects`) by id or by content:
-- hardening carries a task unchanged into the next iteration under a new id, and a copy is just as defective.
SELECT e.*
FROM sft_examples AS e
JOIN rollout_rewards AS r USING (rollout_id)
JOIN rollouts AS o USING (rollout_id)
WHERE e.reward > $min_reward
  AND r.verification = 'scored'
  AND NOT r.incomplete
  AND o.status = 'completed'
  AND NOT EXISTS (SELECT 1 FROM rollout_flags AS f WHERE f.rollout_id = e.rollout_id)
  AND NOT EXISTS (SELECT 1 FROM defective_tasks AS d WHERE d.task_id = e.task_id)
  AND NOT EXISTS (SELECT 1 FROM defective_tasks AS d WHERE d.task_digest = e.task_digest)
ORDER BY e.iteration, e.task_id, e.rollout_id;
