// The player's games with their colour, newest first, at most $limit.
MATCH (:Player {name: $player})-[r:INGESTED]->(g:Game)
RETURN g.record AS record, r.color AS color, r.date AS date, g.id AS id
ORDER BY r.date DESC, g.id DESC
LIMIT $limit
