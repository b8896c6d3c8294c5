// Remembers the state of one fetched unit.
MERGE (f:FetchState {player: $player, unit: $unit})
SET f.etag = $etag, f.lastModified = $lastModified, f.complete = $complete,
    f.games = $games, f.cursor = $cursor
