// Every edge row of the player.
MATCH (a:Position)-[m:MOVE {player: $player}]->(b:Position)
RETURN m.uci AS uci, m.color AS color, m.tc AS tc, m.rated AS rated, m.month AS month,
       m.w AS w, m.d AS d, m.l AS l, m.ratingSum AS ratingSum, m.ratedGames AS ratedGames,
       m.first AS first, m.last AS last, coalesce(m.opp, 0) AS opp, m.src AS src, a.key AS from, b.key AS to
