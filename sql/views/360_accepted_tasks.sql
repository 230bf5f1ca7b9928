-- Grain: one row per task version that passed every validation gate (what rollouts, exports and
-- training use), with its validation's partition.
CREATE OR REPLACE VIEW accepted_tasks AS
SELECT t.* EXCLUDE (partition_key), v.partition_key AS validation_partition
FROM tasks AS t
JOIN (SELECT DISTINCT task_id, partition_key FROM validations WHERE accepted) AS v USING (task_id)
WHERE t.status IN ('built', 'accepted');
