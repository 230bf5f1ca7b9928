-- Grain: one row per verified rollout: its reward, full-credit flag and verification status.
-- `incomplete`: some item was not scored (a failing or missing judge): the reward counts it 0 and the
-- rollout is never full credit, never in the SFT set, and marked in the RL export.
CREATE OR REPLACE VIEW rollout_rewards AS
SELECT rollout_id, any_value(task_id) AS task_id, any_value(iteration) AS iteration, any_value(domain) AS domain,
       any_value(policy) AS policy, any_value(attempt) AS attempt, any_value(verification) AS verification,
       any_value(reward) AS reward, any_value(full_credit) AS full_credit, any_value(flags) AS flags,
       count(item_id) AS items, count(*) FILTER (WHERE status = 'passed') AS items_passed,
       count(*) FILTER (WHERE status IN ('error', 'unscored')) > 0 AS incomplete
FROM rubric_scores
GROUP BY rollout_id;
