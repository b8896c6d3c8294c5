// Positions where I score worst with my own moves (at least $minGames games).
// Parameters: $player (lower-case name), $minGames.
MATCH (a:Position)-[m:MOVE {player: $player}]->()
WHERE (m.color = 'white') = (a.epd CONTAINS ' w ')
WITH a, sum(m.w) AS w, sum(m.d) AS d, sum(m.l) AS l
WITH a, w, d, l, w + d + l AS games
WHERE games >= $minGames
RETURN a.epd AS epd, games, (w + 0.5 * d) / games AS score
ORDER BY score ASC, games DESC
LIMIT 20
