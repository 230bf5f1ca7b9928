-- Grain: one row per verified rollout: its reward, full-credit flag and verification status.
CREATE OR REPLACE VIEW rollout_rewards AS
SELECT rollout_id, any_value(task_id) AS task_id, any_value(iteration) AS iteration, any_value(domain) AS domain,
       any_value(policy) AS policy, any_value(attempt) AS attempt, any_value(verification) AS verification,
       any_value(reward) AS reward, any_value(full_credit) AS full_credit, any_value(flags) AS flags,
       count(item_id) AS items, count(*) FILTER (WHERE status = 'passed') AS items_passed
FROM rubric_scores
GROUP BY rollout_id;
