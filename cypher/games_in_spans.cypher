// The player's games played within the date spans $spans ([[first, last], ...], dates as
// mirror stores them), with their colour, newest first, at most $limit: the candidates of
// a position's recent games (recent_spans.cypher gives the spans).
MATCH (:Player {name: $player})-[r:INGESTED]->(g:Game)
WHERE any(s IN $spans WHERE r.date >= s[0] AND r.date <= s[1])
RETURN g.record AS record, r.color AS color, r.date AS date, g.id AS id
ORDER BY r.date DESC, g.id DESC
LIMIT $limit
