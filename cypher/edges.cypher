// Every edge row of the player.
MATCH (a:PlayerPosition {player: $player})-[m:MOVE]->(b:PlayerPosition)
RETURN m.uci AS uci, m.color AS color, m.tc AS tc, m.rated AS rated, m.month AS month,
       m.w AS w, m.d AS d, m.l AS l, m.ratingSum AS ratingSum, m.ratedGames AS ratedGames,
       m.first AS first, m.last AS last, m.opp AS opp, m.src AS src, a.key AS from, b.key AS to
