// Which of $ids are already ingested for $player.
MATCH (:Player {name: $player})-[:INGESTED]->(g:Game)
WHERE g.id IN $ids
RETURN g.id AS id
