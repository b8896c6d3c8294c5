// Creates a batch's move totals (one PLAYED per position, move and colour: every game of
// the player through it, whatever the other dimensions; kept for positions of at least 30
// pieces, where the popular positions are) that leave PlayerPositions this batch created.
// Each row is a list [from, to, uci, color, w, d, l, ratingSum, ratedGames, first, last,
// timed, timeMs, trouble]
// (from, to: element ids as in write_new_edges.cypher).
UNWIND $rows AS row
MATCH (a:PlayerPosition) WHERE elementId(a) = row[0]
MATCH (b:PlayerPosition) WHERE elementId(b) = row[1]
CREATE (a)-[:PLAYED {uci: row[2], color: row[3], w: row[4], d: row[5], l: row[6],
                     ratingSum: row[7], ratedGames: row[8], first: row[9], last: row[10],
                     timed: row[11], timeMs: row[12], trouble: row[13]}]->(b)
