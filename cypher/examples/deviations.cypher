// Positions where my most common move differs from the move my opponents most often
// chose in the same position (when they had this side to move against me).
// Parameters: $player (lower-case name), $minGames.
MATCH (a:Position)-[m:MOVE {player: $player}]->()
WITH a,
     m.uci AS uci,
     (m.color = 'white') = (a.epd CONTAINS ' w ') AS mine,
     m.w + m.d + m.l AS games
WITH a, mine, uci, sum(games) AS games
ORDER BY games DESC, uci
WITH a, mine, collect(uci)[0] AS top, sum(games) AS total
WITH a, collect({mine: mine, top: top, total: total}) AS sides
WHERE size(sides) = 2
WITH a, [s IN sides WHERE s.mine][0] AS me, [s IN sides WHERE NOT s.mine][0] AS them
WHERE me.top <> them.top AND me.total >= $minGames AND them.total >= $minGames
RETURN a.epd AS epd, me.top AS myMove, me.total AS myGames, them.top AS theirMove, them.total AS theirGames
ORDER BY myGames + theirGames DESC
LIMIT 50
