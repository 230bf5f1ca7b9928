-- Appends world-model attempts: `incoming` holds the rows.
INSERT INTO simulated_calls BY NAME SELECT * FROM incoming;
