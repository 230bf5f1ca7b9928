-- Grain: one row per task version with at least one failed item classified as a construction
-- defect (evaluator_defect or missing_material): flagged for repair, kept out of hardening and SFT.
CREATE OR REPLACE VIEW task_defects AS
SELECT task_id,
       any_value(domain) AS domain,
       any_value(iteration) AS iteration,
       count(*) FILTER (WHERE classification = 'evaluator_defect') AS evaluator_defects,
       count(*) FILTER (WHERE classification = 'missing_material') AS missing_material,
       count(*) FILTER (WHERE classification = 'agent_failure') AS agent_failures,
       count(DISTINCT rollout_id) FILTER (WHERE classification <> 'agent_failure') AS rollouts_affected,
       coalesce(list(DISTINCT item_id ORDER BY item_id) FILTER (WHERE classification = 'evaluator_defect'),
                []) AS evaluator_defect_items,
       coalesce(list(DISTINCT item_id ORDER BY item_id) FILTER (WHERE classification = 'missing_material'),
                []) AS missing_material_items,
       list(DISTINCT item_id ORDER BY item_id) FILTER (WHERE classification <> 'agent_failure') AS defect_items
FROM failure_classifications
GROUP BY task_id
HAVING count(*) FILTER (WHERE classification <> 'agent_failure') > 0;
