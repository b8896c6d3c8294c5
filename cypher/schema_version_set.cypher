// Marks the graph with the schema version this mirror writes (version 3: every MOVE has
// the opponent's rating, opp, 0 when unknown).
MERGE (s:MirrorSchema)
SET s.version = $version
