// My most-played moves: the (position, move) pairs I played in the most games, the
// backbone of my most-played lines (follow them from the start position). Reads my edge
// rows (MOVE), from my own nodes only.
// Parameters: $player (lower-case name), $limit.
// (`key IS NOT NULL` lets Neo4j seek the (player, key) index by the player alone.)
MATCH (n:Position)<-[:AT]-(a:PlayerPosition)-[t:MOVE]->()
WHERE a.player = $player AND a.key IS NOT NULL
  AND (t.color = 'white') = (n.epd CONTAINS ' w ')
WITH n.epd AS epd, t.uci AS uci, sum(t.w + t.d + t.l) AS games
RETURN epd, uci, games
ORDER BY games DESC, epd, uci
LIMIT $limit
