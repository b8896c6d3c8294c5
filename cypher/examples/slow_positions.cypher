// Where I think longest: the positions where I am to move and my moves took the most time
// on average, in games of one time class ($timeClass: bullet, blitz, rapid, ...), from the
// times my edge rows keep (timed: games whose move has a time; timeMs: their milliseconds;
// trouble: those made in time trouble). `mirror report` ranks the same positions against
// my average move of the class ("where you burn your clock").
// Parameters: $player (lower-case name), $timeClass, $minGames, $limit.
// (`key IS NOT NULL` lets Neo4j seek the (player, key) index by the player alone.)
MATCH (n:Position)<-[:AT]-(a:PlayerPosition)-[t:MOVE]->()
WHERE a.player = $player AND a.key IS NOT NULL AND t.tc = $timeClass AND t.timed > 0
  AND (t.color = 'white') = (n.epd CONTAINS ' w ')
WITH n.epd AS epd, sum(t.timed) AS timed, sum(t.timeMs) AS ms, sum(t.trouble) AS trouble
WHERE timed >= $minGames
RETURN epd, timed, ms / 1000.0 / timed AS seconds, trouble
ORDER BY seconds DESC, epd
LIMIT $limit
