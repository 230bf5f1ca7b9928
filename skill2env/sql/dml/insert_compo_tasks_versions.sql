-- Appends one write of `compo_tasks`: `incoming` holds the rows, the versioning columns are bound.
INSERT INTO compo_tasks_versions BY NAME
SELECT $write_id AS write_id, $run_id AS run_id, $materialized_at AS materialized_at,
       $code_version AS code_version, $partition_key AS partition_key, *
FROM incoming;
