-- Grain: one row per candidate pattern offered to the pool by a hardening diagnosis (append-only log).
CREATE TABLE IF NOT EXISTS pattern_additions (
    added_at TIMESTAMPTZ NOT NULL,
    candidate_id VARCHAR NOT NULL,
    action VARCHAR NOT NULL,               -- added | merged | rejected
    pattern_id VARCHAR,                    -- the pooled pattern it became (merged: the one it joined)
    version BIGINT,
    nearest VARCHAR,                       -- the most similar pooled pattern
    similarity DOUBLE,
    reason VARCHAR NOT NULL,
    parent VARCHAR,
    diagnosis VARCHAR,
    pattern JSON NOT NULL                  -- the pooled pattern (added / merged) or the candidate (rejected)
);
