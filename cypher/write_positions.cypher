// Creates the positions a batch reached that are not in the graph yet; returns how many.
UNWIND $positions AS row
OPTIONAL MATCH (old:Position {key: row.key})
WITH row, old
WHERE old IS NULL
CREATE (:Position {key: row.key, epd: row.epd})
RETURN count(*) AS created
