// Positions I reached by two or more move orders (distinct incoming moves from distinct
// parent positions in my games). Parameters: $player (lower-case name).
MATCH (p:Position)-[m:MOVE {player: $player}]->(n:Position)
WITH n, count(DISTINCT [p.key, m.uci]) AS orders
WHERE orders >= 2
RETURN n.epd AS epd, orders
ORDER BY orders DESC
LIMIT 50
