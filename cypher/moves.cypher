// The player's moves from each position of $keys (one or many: a walk asks for a whole
// ply at once), summed per move over the edge rows the filter accepts: $color
// ('white'/'black', null = both), $tcs (time classes, [] = all), $rated (null = both),
// $since/$until ('YYYY-MM', null = open; with either, rows of unknown month ('') are left
// out), $oppMin/$oppMax (the opponent's rating, inclusive; null = any; with them, rows of
// unknown rating (0) are left out), $sources (chesscom/lichess/otb, [] = all). 'YYYY-MM'
// strings sort as the months do. `first` is the earliest known date (0 = unknown, as
// mirror stores it). Starts at the player's own node (one index seek per key) and walks
// that player's rows only. A question with no filter but the colour reads the totals
// instead (moves_totals.cypher).
UNWIND $keys AS key
MATCH (a:PlayerPosition {player: $player, key: key})-[m:MOVE]->(b:PlayerPosition)
WHERE ($color IS NULL OR m.color = $color)
  AND (size($tcs) = 0 OR m.tc IN $tcs)
  AND ($rated IS NULL OR m.rated = $rated)
  AND ($since IS NULL OR (m.month <> '' AND m.month >= $since))
  AND ($until IS NULL OR (m.month <> '' AND m.month <= $until))
  AND ($oppMin IS NULL OR (m.opp <> 0 AND m.opp >= $oppMin AND m.opp <= $oppMax))
  AND (size($sources) = 0 OR m.src IN $sources)
RETURN key AS from, m.uci AS uci, b.key AS to,
       sum(m.w) AS w, sum(m.d) AS d, sum(m.l) AS l,
       sum(m.ratingSum) AS ratingSum, sum(m.ratedGames) AS ratedGames,
       coalesce(min(CASE WHEN m.first = 0 THEN null ELSE m.first END), 0) AS first,
       max(m.last) AS last, sum(m.timed) AS timed, sum(m.timeMs) AS timeMs,
       sum(m.trouble) AS trouble
