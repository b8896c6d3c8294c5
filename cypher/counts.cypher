// A player's totals.
MATCH (p:Player {name: $player})
RETURN p.games AS games, p.edgeRows AS edgeRows
