-- Appends buffered ledger rows: `incoming` holds one row per request of a model call.
INSERT INTO llm_call_rounds BY NAME SELECT * FROM incoming;
