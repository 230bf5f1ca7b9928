-- Registers a committed write; the views switch to it atomically with the transaction's commit.
INSERT INTO materializations (write_id, table_name, partition_key, run_id, materialized_at, code_version, row_count)
VALUES ($write_id, $table_name, $partition_key, $run_id, $materialized_at, $code_version, $row_count);
