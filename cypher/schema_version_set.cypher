// Marks the graph with the schema version this mirror writes (version 3: every MOVE has
// the opponent's rating, opp, 0 when unknown; version 4: and src, the site the game was
// played on: chesscom, lichess or otb).
MERGE (s:MirrorSchema)
SET s.version = $version
