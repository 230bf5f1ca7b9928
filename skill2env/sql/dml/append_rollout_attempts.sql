-- Appends rollout attempt events: `incoming` holds the rows.
INSERT INTO rollout_attempts BY NAME SELECT * FROM incoming;
