// First statement of a batch's transaction: creates the player if new, takes the player's
// write lock (held until commit, so two writers of one player run one after the other),
// then returns which of the batch's games are already ingested for the player. Checking
// after the lock, inside the writing transaction, is what makes a batch count exactly once.
// The index hint starts from each game (one or two INGESTED edges), not from the player
// (all of theirs): without it the planner expanded the player for every id.
MERGE (p:Player {name: $player})
  ON CREATE SET p.displayName = $display, p.games = 0, p.edgeRows = 0, p.version = 0
SET p.writeLock = true
REMOVE p.writeLock
WITH p
UNWIND $ids AS id
MATCH (g:Game {id: id})
USING INDEX g:Game(id)
WHERE (p)-[:INGESTED]->(g)
RETURN g.id AS id
