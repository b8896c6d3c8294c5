// My most-played moves: the (position, move) pairs I played in the most games, the
// backbone of my most-played lines (follow them from the start position).
// Parameters: $player (lower-case name), $limit.
MATCH (a:Position)-[m:MOVE {player: $player}]->()
WHERE (m.color = 'white') = (a.epd CONTAINS ' w ')
WITH a.epd AS epd, m.uci AS uci, sum(m.w + m.d + m.l) AS games
RETURN epd, uci, games
ORDER BY games DESC, epd, uci
LIMIT $limit
