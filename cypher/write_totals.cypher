// Adds a batch's game and edge-row counts to the player's totals, and raises the player's
// version: a server that keeps answers for this player sees the new version at its next
// request and reads afresh (player_version.cypher).
MATCH (p:Player {name: $player})
SET p.games = p.games + $games, p.edgeRows = p.edgeRows + $edgeRows,
    p.version = coalesce(p.version, 0) + 1
