// Adds the positions a batch reached; returns the keys of those that were not in the
// graph yet (their edges are new too: write_new_edges creates them without MERGE).
// Each row is a list [key, epd] (lists cost the server half of what maps cost).
UNWIND $positions AS row
OPTIONAL MATCH (old:Position {key: row[0]})
WITH row, old IS NULL AS isNew
MERGE (n:Position {key: row[0]})
  ON CREATE SET n.epd = row[1]
RETURN collect(CASE WHEN isNew THEN row[0] END) AS created
