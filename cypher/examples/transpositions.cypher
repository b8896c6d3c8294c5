// Positions I reached by two or more move orders (distinct incoming moves from distinct
// parent positions in my games), walking my own nodes only.
// Parameters: $player (lower-case name).
// (`key IS NOT NULL` lets Neo4j seek the (player, key) index by the player alone.)
MATCH (p:PlayerPosition)-[t:MOVE]->(c:PlayerPosition)-[:AT]->(n:Position)
WHERE p.player = $player AND p.key IS NOT NULL
WITH n, count(DISTINCT [p.key, t.uci]) AS orders
WHERE orders >= 2
RETURN n.epd AS epd, orders
ORDER BY orders DESC
LIMIT 50
