// Creates a batch's edge rows that leave positions this batch created (so none of them
// can exist yet; the batch holds one row per edge key): no MERGE needed.
UNWIND $rows AS row
MATCH (a:Position {key: row.from})
MATCH (b:Position {key: row.to})
CREATE (a)-[:MOVE {player: row.player, uci: row.uci, color: row.color, tc: row.tc,
                   rated: row.rated, month: row.month, w: row.w, d: row.d, l: row.l,
                   ratingSum: row.ratingSum, ratedGames: row.ratedGames,
                   first: row.first, last: row.last}]->(b)
