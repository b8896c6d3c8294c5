// Positions where I score worst with my own moves (at least $minGames games), from my
// move totals. Parameters: $player (lower-case name), $minGames.
MATCH (n:Position)<-[:AT]-(a:PlayerPosition {player: $player})-[t:PLAYED]->()
WHERE (t.color = 'white') = (n.epd CONTAINS ' w ')
WITH n, sum(t.w) AS w, sum(t.d) AS d, sum(t.l) AS l
WITH n, w, d, l, w + d + l AS games
WHERE games >= $minGames
RETURN n.epd AS epd, games, (w + 0.5 * d) / games AS score
ORDER BY score ASC, games DESC
LIMIT 20
