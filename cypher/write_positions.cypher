// Adds the positions a batch reached; returns how many were not in the graph yet.
UNWIND $positions AS row
OPTIONAL MATCH (old:Position {key: row.key})
WITH row, old IS NULL AS isNew
MERGE (n:Position {key: row.key})
  ON CREATE SET n.epd = row.epd
RETURN sum(CASE WHEN isNew THEN 1 ELSE 0 END) AS created
