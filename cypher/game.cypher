// One game's record.
MATCH (g:Game {id: $id})
RETURN g.record AS record
