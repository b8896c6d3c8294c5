// The player's moves from each position of $keys, summed per move from the move totals
// (one PLAYED per move and colour), for a question whose only filter is the colour ($color
// 'white'/'black', null = both): a handful of relationships whatever the number of games
// through the position. Same columns as moves.cypher. Totals are kept for positions of at
// least 30 pieces: a key without rows has none, and its rows are read instead.
UNWIND $keys AS key
MATCH (a:PlayerPosition {player: $player, key: key})-[t:PLAYED]->(b:PlayerPosition)
WHERE $color IS NULL OR t.color = $color
RETURN key AS from, t.uci AS uci, b.key AS to,
       sum(t.w) AS w, sum(t.d) AS d, sum(t.l) AS l,
       sum(t.ratingSum) AS ratingSum, sum(t.ratedGames) AS ratedGames,
       coalesce(min(CASE WHEN t.first = 0 THEN null ELSE t.first END), 0) AS first,
       max(t.last) AS last, sum(t.timed) AS timed, sum(t.timeMs) AS timeMs,
       sum(t.trouble) AS trouble
