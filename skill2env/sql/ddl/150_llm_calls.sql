-- Grain: one row per model call (cache hits and failures included); an append-only ledger.
CREATE TABLE IF NOT EXISTS llm_calls (
    call_id VARCHAR NOT NULL,
    called_at TIMESTAMPTZ NOT NULL,
    role VARCHAR NOT NULL,                 -- curator | author | solver | judge | verifier | diagnoser
    model VARCHAR NOT NULL,
    endpoint_host VARCHAR NOT NULL,        -- host[:port] only: never the URL's credentials, never the key
    operation VARCHAR NOT NULL,            -- complete | structured | tools
    prompt_hash VARCHAR NOT NULL,          -- sha256 (16 hex) of the prompt's messages
    request_key VARCHAR,                   -- cache key of the call's first request
    template_id VARCHAR,                   -- prompt template (file stem), NULL for ad-hoc messages
    template_version VARCHAR,              -- sha256 (16 hex) of the template's source
    input_tokens BIGINT NOT NULL,          -- spent at the endpoint (0 when served from the cache)
    output_tokens BIGINT NOT NULL,
    cached_input_tokens BIGINT NOT NULL,   -- tokens of answers served from the cache (not spent)
    cached_output_tokens BIGINT NOT NULL,
    cost_usd DOUBLE NOT NULL,              -- of the tokens spent, at the role's configured prices
    latency_ms DOUBLE NOT NULL,            -- wall time of the whole call, retries and repairs included
    cache_hit BOOLEAN NOT NULL,            -- every answer came from the cache
    attempts BIGINT NOT NULL,              -- requests made: HTTP tries plus answers served from the cache
    endpoint_requests BIGINT NOT NULL,     -- HTTP tries only
    finish_reason VARCHAR,                 -- of the last answer
    status VARCHAR NOT NULL,               -- ok | error
    error_class VARCHAR,                   -- ModelUnavailable, ModelOutputInvalid, ModelRefused, ModelTruncated, …
    error_kind VARCHAR,                    -- infrastructure | output | internal
    error_message VARCHAR,
    asset_key VARCHAR,                     -- the asset, partition and run that made the call
    partition_key VARCHAR,
    run_id VARCHAR
);
