// Records an account or name of a player ($source: chesscom, lichess or otb; $key: the
// name lower-cased, so that spellings of one account meet; $name: as the user typed it),
// and raises the player's version when the player is stored (player_version.cypher).
MERGE (a:Account {player: $player, source: $source, key: $key})
ON CREATE SET a.name = $name
WITH a
OPTIONAL MATCH (p:Player {name: $player})
FOREACH (q IN CASE WHEN p IS NULL THEN [] ELSE [p] END |
  SET q.version = coalesce(q.version, 0) + 1)
