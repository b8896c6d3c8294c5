// Marks the graph with the schema version this mirror writes (version 3: every MOVE has
// the opponent's rating, opp, 0 when unknown; version 4: and src, the site the game was
// played on: chesscom, lichess or otb; version 5: a player's moves join the player's own
// PlayerPosition nodes, with a PLAYED total per move and colour, and the Player node
// carries a version that every write raises).
MERGE (s:MirrorSchema)
SET s.version = $version
