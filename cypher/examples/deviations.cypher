// Positions where my most common move differs from the move my opponents most often
// chose in the same position (when they had this side to move against me), from my
// edge rows. Parameters: $player (lower-case name), $minGames.
// (`key IS NOT NULL` lets Neo4j seek the (player, key) index by the player alone.)
MATCH (n:Position)<-[:AT]-(a:PlayerPosition)-[t:MOVE]->()
WHERE a.player = $player AND a.key IS NOT NULL
WITH n,
     t.uci AS uci,
     (t.color = 'white') = (n.epd CONTAINS ' w ') AS mine,
     t.w + t.d + t.l AS games
WITH n, mine, uci, sum(games) AS games
ORDER BY games DESC, uci
WITH n, mine, collect(uci)[0] AS top, sum(games) AS total
WITH n, collect({mine: mine, top: top, total: total}) AS sides
WHERE size(sides) = 2
WITH n, [s IN sides WHERE s.mine][0] AS me, [s IN sides WHERE NOT s.mine][0] AS them
WHERE me.top <> them.top AND me.total >= $minGames AND them.total >= $minGames
RETURN n.epd AS epd, me.top AS myMove, me.total AS myGames, them.top AS theirMove, them.total AS theirGames
ORDER BY myGames + theirGames DESC
LIMIT 50
