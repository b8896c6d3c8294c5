// Records an account or name of a player ($source: chesscom, lichess or otb; $key: the
// name lower-cased, so that spellings of one account meet; $name: as the user typed it).
MERGE (a:Account {player: $player, source: $source, key: $key})
ON CREATE SET a.name = $name
