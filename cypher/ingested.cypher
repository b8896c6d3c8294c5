// Which of $ids are already ingested for $player (from each game, not from the player).
UNWIND $ids AS id
MATCH (g:Game {id: id})
USING INDEX g:Game(id)
WHERE (:Player {name: $player})-[:INGESTED]->(g)
RETURN g.id AS id
