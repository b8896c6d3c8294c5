// The player's version: raised by every write of the player's data (a batch, an account),
// so that answers kept for the player are valid while it is unchanged; plus the version of
// the evaluations, raised by every write of them (`mirror analyse` by anyone), since the
// answers show them. Both only grow, so their sum changes at every such write. No row:
// unknown player.
MATCH (p:Player {name: $player})
OPTIONAL MATCH (v:EvaluationsVersion {mark: 0})
RETURN coalesce(p.version, 0) + coalesce(v.version, 0) AS version
