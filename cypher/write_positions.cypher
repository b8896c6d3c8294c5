// Adds the positions a batch reached: the shared Position (one per position, whoever
// reached it) and the player's own PlayerPosition, joined by AT when the latter is new.
// Returns the keys of the Positions new to the graph (counted as new positions) and of
// the PlayerPositions new to the player (their edge rows and totals are new too:
// write_new_edges and write_new_totals create them without looking). Both lookups are
// unique-index seeks: the cost does not depend on what the graph already holds.
// Each row is a list [key, epd] (lists cost the server half of what maps cost).
UNWIND $positions AS row
OPTIONAL MATCH (old:Position {key: row[0]})
OPTIONAL MATCH (mine:PlayerPosition {player: $player, key: row[0]})
WITH row, old IS NULL AS isNew, mine IS NULL AS isMineNew
MERGE (n:Position {key: row[0]})
  ON CREATE SET n.epd = row[1]
FOREACH (_ IN CASE WHEN isMineNew THEN [1] ELSE [] END |
  CREATE (:PlayerPosition {player: $player, key: row[0]})-[:AT]->(n))
RETURN collect(CASE WHEN isNew THEN row[0] END) AS created,
       collect(CASE WHEN isMineNew THEN row[0] END) AS mine
