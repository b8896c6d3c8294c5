// The schema version of the graph, and whether it has any move at all (a graph with moves
// but no version was written before versions existed). $ none.
OPTIONAL MATCH (s:MirrorSchema)
WITH s
OPTIONAL MATCH ()-[m:MOVE]->()
WITH s, m
LIMIT 1
RETURN s.version AS version, m IS NOT NULL AS hasMoves
