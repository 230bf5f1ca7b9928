-- Grain: one row per request a model call made (each HTTP try, each answer served from the cache,
-- each repair round and each longer retry), with the raw answer: what the model said, linked to
-- its call in `llm_calls` by `call_id`. An append-only ledger.
CREATE TABLE IF NOT EXISTS llm_call_rounds (
    call_id VARCHAR NOT NULL,
    round BIGINT NOT NULL,                 -- 1, 2, … in the order the requests were made
    request_key VARCHAR NOT NULL,          -- the request's cache key: rounds of one call differ by it
    source VARCHAR NOT NULL,               -- endpoint | cache
    max_tokens BIGINT,
    temperature DOUBLE,
    finish_reason VARCHAR,
    input_tokens BIGINT NOT NULL,
    output_tokens BIGINT NOT NULL,
    content VARCHAR,                       -- the raw answer text, at most 20,000 characters
    content_chars BIGINT NOT NULL,         -- its full length
    tool_calls VARCHAR,                    -- the raw tool calls, as JSON
    error_class VARCHAR,                   -- why this request failed (the call may still have succeeded)
    error_message VARCHAR
);
