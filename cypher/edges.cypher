// Every edge row of the player.
// (`key IS NOT NULL` lets Neo4j seek the (player, key) index by the player alone.)
MATCH (a:PlayerPosition)-[m:MOVE]->(b:PlayerPosition)
WHERE a.player = $player AND a.key IS NOT NULL
RETURN m.uci AS uci, m.color AS color, m.tc AS tc, m.rated AS rated, m.month AS month,
       m.w AS w, m.d AS d, m.l AS l, m.ratingSum AS ratingSum, m.ratedGames AS ratedGames,
       m.first AS first, m.last AS last, m.opp AS opp, m.src AS src, a.key AS from, b.key AS to,
       m.timed AS timed, m.timeMs AS timeMs, m.trouble AS trouble
