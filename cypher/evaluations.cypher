// The stored evaluations of the positions $keys, shared by every player who reaches them:
// the score's kind ('cp' or 'mate') and value from White's side, the best move (UCI, ''
// for none), the depth reached, the engine's name and the source ('engine' or 'comment').
// Keys without a Position or without an evaluation are left out. The value is returned as
// text: neo4rs 0.8 reads a small negative integer (-16 to -1, Bolt's tiny int) back as its
// byte (mate in -3 came back as 253).
UNWIND $keys AS key
MATCH (n:Position {key: key})
WHERE n.evalDepth IS NOT NULL
RETURN key, n.evalKind AS kind, toString(n.evalValue) AS value, n.evalBest AS best,
       n.evalDepth AS depth, n.evalEngine AS engine, n.evalSource AS source
