-- Grain: one row per edge of the newest tool dependency graph.
CREATE OR REPLACE VIEW service_graph_edges AS
SELECT v.* EXCLUDE (write_id, partition_key)
FROM service_graph_edges_versions AS v
JOIN latest_materializations AS m
    ON m.table_name = 'service_graph_edges' AND m.write_id = v.write_id;
