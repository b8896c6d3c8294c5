// Adds a batch's game and edge-row counts to the player's totals.
MATCH (p:Player {name: $player})
SET p.games = p.games + $games, p.edgeRows = p.edgeRows + $edgeRows
