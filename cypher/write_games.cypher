// Records a batch's games and marks them ingested for the player (after write_begin).
MATCH (p:Player {name: $player})
UNWIND $games AS row
MERGE (g:Game {id: row.id})
  ON CREATE SET g.record = row.record
CREATE (p)-[:INGESTED {color: row.color, date: row.date}]->(g)
