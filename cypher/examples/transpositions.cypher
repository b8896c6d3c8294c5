// Positions I reached by two or more move orders (distinct incoming moves from distinct
// parent positions in my games), walking my own nodes only.
// Parameters: $player (lower-case name).
MATCH (p:PlayerPosition {player: $player})-[t:PLAYED]->(c:PlayerPosition)-[:AT]->(n:Position)
WITH n, count(DISTINCT [p.key, t.uci]) AS orders
WHERE orders >= 2
RETURN n.epd AS epd, orders
ORDER BY orders DESC
LIMIT 50
