-- Appends buffered ledger rows: `incoming` holds one row per model call.
INSERT INTO llm_calls BY NAME SELECT * FROM incoming;
