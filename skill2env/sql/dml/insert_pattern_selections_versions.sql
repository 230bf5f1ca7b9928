-- Appends one write of `pattern_selections`: `incoming` holds the rows, the versioning columns are bound.
INSERT INTO pattern_selections_versions BY NAME
SELECT $write_id AS write_id, $run_id AS run_id, $materialized_at AS materialized_at,
       $code_version AS code_version, $partition_key AS partition_key, *
FROM incoming;
