// What an incremental source remembers about one unit.
MATCH (f:FetchState {player: $player, unit: $unit})
RETURN f.etag AS etag, f.lastModified AS lastModified, f.complete AS complete,
       f.games AS games, f.cursor AS cursor
