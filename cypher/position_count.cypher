// How many positions the graph has.
MATCH (n:Position)
RETURN count(n) AS positions
