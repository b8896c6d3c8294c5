// Positions where I score worst with my own moves (at least $minGames games), from my
// edge rows. Parameters: $player (lower-case name), $minGames.
// (`key IS NOT NULL` lets Neo4j seek the (player, key) index by the player alone.)
MATCH (n:Position)<-[:AT]-(a:PlayerPosition)-[t:MOVE]->()
WHERE a.player = $player AND a.key IS NOT NULL
  AND (t.color = 'white') = (n.epd CONTAINS ' w ')
WITH n, sum(t.w) AS w, sum(t.d) AS d, sum(t.l) AS l
WITH n, w, d, l, w + d + l AS games
WHERE games >= $minGames
RETURN n.epd AS epd, games, (w + 0.5 * d) / games AS score
ORDER BY score ASC, games DESC
LIMIT 20
