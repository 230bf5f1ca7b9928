-- Grain: one row: the current CompoWorld — services (verified), tools, graph edges and components, tasks.
CREATE OR REPLACE VIEW compoworld_stats AS
SELECT
    (SELECT count(*) FROM services) AS services,
    (SELECT count(*) FROM services WHERE verified) AS verified_services,
    (SELECT count(DISTINCT domain) FROM services) AS domains,
    (SELECT count(*) FROM service_tools) AS tools,
    (SELECT count(*) FROM service_tools WHERE simulated) AS simulated_tools,
    (SELECT count(*) FROM service_graph_edges) AS edges,
    (SELECT count(*) FROM service_graph_edges WHERE kind = 'data') AS data_edges,
    (SELECT count(*) FROM service_graph_edges WHERE kind = 'state') AS state_edges,
    (SELECT count(*) FROM service_graph_edges WHERE cross_service) AS cross_service_edges,
    (SELECT count(DISTINCT component) FROM service_tools) AS components,
    (SELECT count(*) FROM compo_tasks WHERE status = 'ok') AS tasks,
    (SELECT count(*) FROM compo_tasks WHERE status = 'skipped') AS skipped_tasks;
