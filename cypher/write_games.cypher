// Records a batch's games and marks them ingested for the player.
MERGE (p:Player {name: $player})
  ON CREATE SET p.displayName = $display, p.games = 0, p.edgeRows = 0
WITH p
UNWIND $games AS row
MERGE (g:Game {id: row.id})
  ON CREATE SET g.record = row.record
MERGE (p)-[r:INGESTED]->(g)
SET r.color = row.color, r.date = row.date
