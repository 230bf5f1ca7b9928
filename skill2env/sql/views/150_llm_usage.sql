-- Grain: one row per (UTC day, role, model, asset): calls, cache hits, errors, tokens spent and saved, cost.
CREATE OR REPLACE VIEW llm_usage AS
SELECT
    CAST(timezone('UTC', called_at) AS DATE) AS day,
    role,
    model,
    coalesce(asset_key, '') AS asset_key,
    count(*) AS calls,
    count(*) FILTER (WHERE cache_hit) AS cache_hits,
    count(*) FILTER (WHERE status = 'error') AS errors,
    count(*) FILTER (WHERE error_kind = 'infrastructure') AS infrastructure_errors,
    CAST(sum(input_tokens) AS BIGINT) AS input_tokens,
    CAST(sum(output_tokens) AS BIGINT) AS output_tokens,
    CAST(sum(input_tokens + output_tokens) AS BIGINT) AS tokens_spent,
    CAST(sum(cached_input_tokens + cached_output_tokens) AS BIGINT) AS tokens_saved,
    sum(cost_usd) AS cost_usd,
    CAST(sum(endpoint_requests) AS BIGINT) AS endpoint_requests,
    round(median(latency_ms), 1) AS median_latency_ms
FROM llm_calls
GROUP BY ALL
ORDER BY day, role, model, asset_key;
