// Adds the positions a batch reached; returns the keys of those that were not in the
// graph yet (their edges are new too: write_new_edges creates them without MERGE).
UNWIND $positions AS row
OPTIONAL MATCH (old:Position {key: row.key})
WITH row, old IS NULL AS isNew
MERGE (n:Position {key: row.key})
  ON CREATE SET n.epd = row.epd
RETURN collect(CASE WHEN isNew THEN row.key END) AS created
