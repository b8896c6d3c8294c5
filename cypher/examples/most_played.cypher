// My most-played moves: the (position, move) pairs I played in the most games, the
// backbone of my most-played lines (follow them from the start position). Reads my move
// totals (PLAYED, one per move and colour) from my own nodes.
// Parameters: $player (lower-case name), $limit.
MATCH (n:Position)<-[:AT]-(a:PlayerPosition {player: $player})-[t:PLAYED]->()
WHERE (t.color = 'white') = (n.epd CONTAINS ' w ')
WITH n.epd AS epd, t.uci AS uci, sum(t.w + t.d + t.l) AS games
RETURN epd, uci, games
ORDER BY games DESC, epd, uci
LIMIT $limit
