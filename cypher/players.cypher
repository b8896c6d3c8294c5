// The players with their game counts.
MATCH (p:Player)
RETURN p.displayName AS name, p.games AS games
ORDER BY p.name
