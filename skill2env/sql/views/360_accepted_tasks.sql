-- Grain: one row per task version that passed every validation gate (what rollouts, exports and
-- training use), with its validation's partition and `acceptance`: `accepted`, or
-- `accepted_without_judge` when its judge items cannot be scored (its rollouts are then incomplete).
CREATE OR REPLACE VIEW accepted_tasks AS
SELECT t.* EXCLUDE (partition_key), v.partition_key AS validation_partition, v.acceptance
FROM tasks AS t
JOIN (SELECT task_id, partition_key, any_value(acceptance) AS acceptance FROM validations WHERE accepted
      GROUP BY task_id, partition_key) AS v USING (task_id)
WHERE t.status IN ('built', 'accepted');
