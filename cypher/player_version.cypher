// The player's version: raised by every write of the player's data (a batch, an account),
// so that answers kept for the player are valid while it is unchanged. No row: unknown
// player.
MATCH (p:Player {name: $player})
RETURN coalesce(p.version, 0) AS version
