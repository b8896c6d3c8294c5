// The accounts and names through which a player's games reached the store ($player: the
// player's key), in no particular order.
MATCH (a:Account {player: $player})
RETURN a.source AS source, a.name AS name
