// Marks the graph with the schema version this mirror writes (version 3: every MOVE has
// the opponent's rating, opp, 0 when unknown; version 4: and src, the site the game was
// played on: chesscom, lichess or otb; version 5: a player's moves join the player's own
// PlayerPosition nodes, with a PLAYED total per move and colour, and the Player node
// carries a version that every write raises).
// The node is keyed (mark, unique by schema.cypher) so that clients that mark a new graph
// at once merge one node instead of each creating its own.
MERGE (s:MirrorSchema {mark: 'mirror'})
SET s.version = $version
