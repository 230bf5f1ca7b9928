-- Grain: one row per verified rollout (`rollout_rewards`) whose policy is $policy (every policy when
-- $policy is NULL): its reward, whether it is incomplete (a judge item unscored or errored: the reward
-- counts it 0 and is not the whole story), and whether its trajectory was flagged (`rollout_flags`: it touched the
-- verifier's paths or a reward file, or matched a hack strategy) with the rules, the highest severity
-- and the agent steps — so an RL trainer can drop or penalise those attempts.
WITH marks AS (
    SELECT rollout_id,
           string_agg(DISTINCT rule, ',' ORDER BY rule) AS flag_rules,
           arg_max(severity, CASE severity WHEN 'high' THEN 2 WHEN 'medium' THEN 1 ELSE 0 END) AS flag_severity,
           array_to_string(list_sort(list_distinct(list(step_id))), ',') AS flag_steps
    FROM rollout_flags
    GROUP BY rollout_id
)
SELECT r.rollout_id, r.task_id, r.iteration, r.policy, r.attempt, r.verification, r.reward, r.full_credit,
       r.incomplete, m.rollout_id IS NOT NULL AS flagged, m.flag_rules, m.flag_severity, m.flag_steps
FROM rollout_rewards AS r
LEFT JOIN marks AS m USING (rollout_id)
WHERE CAST($policy AS VARCHAR) IS NULL OR r.policy = $policy
ORDER BY r.task_id, r.policy, r.attempt, r.rollout_id;
