// The date spans [first, last] of the player's moves from one position (0 = unknown
// date): of its move totals when it keeps them (a few), else of its edge rows. The games
// through the position were played within these spans, so a search for its recent games
// reads the player's games of those days only (games_in_spans.cypher). No row: the
// player never played a move from it.
MATCH (a:PlayerPosition {player: $player, key: $key})
OPTIONAL MATCH (a)-[t:PLAYED]->()
WITH a, collect(CASE WHEN t IS NULL THEN null ELSE [t.first, t.last] END) AS totals
CALL (a, totals) {
  WITH a, totals
  WHERE size(totals) > 0
  RETURN totals AS spans
  UNION
  WITH a, totals
  WHERE size(totals) = 0
  MATCH (a)-[m:MOVE]->()
  RETURN collect([m.first, m.last]) AS spans
}
RETURN spans
