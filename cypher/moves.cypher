// The player's edge rows from one position (filtered and summed in Rust).
MATCH (a:Position {key: $key})-[m:MOVE {player: $player}]->(b:Position)
RETURN m.uci AS uci, m.color AS color, m.tc AS tc, m.rated AS rated, m.month AS month,
       m.w AS w, m.d AS d, m.l AS l, m.ratingSum AS ratingSum, m.ratedGames AS ratedGames,
       m.first AS first, m.last AS last, a.key AS from, b.key AS to
