// Creates a batch's edge rows that leave PlayerPositions this batch created (so none of
// them can exist yet; the batch holds one row per edge key): no lookup needed. Each row is
// a list [from, to, uci, color, tc, rated, month, w, d, l, ratingSum, ratedGames, first,
// last, opp, src, row, timed, timeMs, trouble] (from, to: the element ids of the player's two PlayerPositions, as
// write_positions.cypher returned them; opp: the opponent's rating, 0 when unknown; src:
// chesscom, lichess or otb; row: the row's key, unique in the graph; timed, timeMs,
// trouble: the moves whose time is known, their milliseconds, those in time trouble) (lists cost the
// server half of what maps cost).
UNWIND $rows AS row
MATCH (a:PlayerPosition) WHERE elementId(a) = row[0]
MATCH (b:PlayerPosition) WHERE elementId(b) = row[1]
CREATE (a)-[:MOVE {uci: row[2], color: row[3], tc: row[4],
                   rated: row[5], month: row[6], w: row[7], d: row[8], l: row[9],
                   ratingSum: row[10], ratedGames: row[11], first: row[12], last: row[13],
                   opp: row[14], src: row[15], row: row[16],
                   timed: row[17], timeMs: row[18], trouble: row[19]}]->(b)
