// Adds the positions a batch reached: the player's own PlayerPosition where it is new,
// joined by AT to the shared Position (one per position, whoever reached it; created if
// new to the graph). Returns the keys of the Positions new to the graph (counted as new
// positions), of the PlayerPositions new to the player (the rows and totals leaving them
// are new too: write_new_edges and write_new_totals create them without looking), and
// every row's PlayerPosition as [key, elementId] (the later statements of the batch find
// the nodes by element id, with no index seek). Every lookup is a unique-index seek: the
// cost does not depend on what the graph already holds.
// Each row is a list [key, epd] (lists cost the server half of what maps cost).
UNWIND $positions AS row
OPTIONAL MATCH (mine:PlayerPosition {player: $player, key: row[0]})
CALL (row, mine) {
  WITH row, mine
  WHERE mine IS NOT NULL
  RETURN mine AS pp, false AS isMineNew, false AS isNew
  UNION
  WITH row, mine
  WHERE mine IS NULL
  OPTIONAL MATCH (old:Position {key: row[0]})
  WITH row, old IS NULL AS isNew
  MERGE (n:Position {key: row[0]})
    ON CREATE SET n.epd = row[1]
  CREATE (pp:PlayerPosition {player: $player, key: row[0]})-[:AT]->(n)
  RETURN pp, true AS isMineNew, isNew
}
RETURN collect(CASE WHEN isNew THEN row[0] END) AS created,
       collect(CASE WHEN isMineNew THEN row[0] END) AS mine,
       collect([row[0], elementId(pp)]) AS ids
