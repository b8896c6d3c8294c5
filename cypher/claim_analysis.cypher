// Takes the positions $keys for the analysis worker $worker until $until (milliseconds
// since the epoch; $now is the time now): those not evaluated by an engine at $depth or
// deeper, and not taken by another worker whose lease still runs. Returns the keys taken.
// The first SET takes each node's write lock before the checks, so that two workers that
// ask at once see each other's claims: only one of them takes a position.
UNWIND $keys AS key
MATCH (n:Position {key: key})
SET n.evalLocked = true
REMOVE n.evalLocked
WITH n, key
WHERE (n.evalDepth IS NULL OR n.evalDepth < $depth OR n.evalSource <> 'engine')
  AND (n.evalClaim IS NULL OR n.evalClaim = $worker OR n.evalClaimUntil < $now)
SET n.evalClaim = $worker, n.evalClaimUntil = $until
RETURN key
