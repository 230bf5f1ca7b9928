-- Appends candidate patterns' outcomes: `incoming` holds the rows.
INSERT INTO pattern_additions BY NAME SELECT * FROM incoming;
