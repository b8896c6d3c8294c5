// Stores each row [key, kind, value, best, depth, engine, source] (as evaluations.cypher
// reads them) on its Position where it has no evaluation yet or one that gives way: a
// deeper search, or as deep an engine's where a comment's was. Returns how many were
// stored. The value comes as text and is stored as an integer (see evaluations.cypher).
// Where any is stored, the evaluations' version is raised (player_version.cypher adds it
// to every player's: answers kept with evaluations in them are then read again).
UNWIND $rows AS row
MATCH (n:Position {key: row[0]})
WITH n, row
WHERE n.evalDepth IS NULL OR row[4] > n.evalDepth
   OR (row[4] = n.evalDepth AND n.evalSource = 'comment' AND row[6] = 'engine')
SET n.evalKind = row[1], n.evalValue = toInteger(row[2]), n.evalBest = row[3], n.evalDepth = row[4],
    n.evalEngine = row[5], n.evalSource = row[6]
WITH count(n) AS stored
FOREACH (_ IN CASE WHEN stored > 0 THEN [1] ELSE [] END |
  MERGE (v:EvaluationsVersion {mark: 0})
  SET v.version = coalesce(v.version, 0) + 1)
RETURN stored
