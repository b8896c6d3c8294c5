// Adds a batch's aggregated edge rows that leave PlayerPositions the player already had
// (one row per edge key): finds the row by its key (a unique-index seek, whatever the
// number of rows between the two positions), adds to it, or creates it; returns how many
// it created. Rows are lists as in write_new_edges.cypher.
UNWIND $rows AS row
OPTIONAL MATCH ()-[old:MOVE {row: row[16]}]->()
CALL (row, old) {
  WITH row, old
  WHERE old IS NULL
  MATCH (a:PlayerPosition) WHERE elementId(a) = row[0]
  MATCH (b:PlayerPosition) WHERE elementId(b) = row[1]
  CREATE (a)-[:MOVE {uci: row[2], color: row[3], tc: row[4],
                     rated: row[5], month: row[6], w: row[7], d: row[8], l: row[9],
                     ratingSum: row[10], ratedGames: row[11], first: row[12], last: row[13],
                     opp: row[14], src: row[15], row: row[16],
                     timed: row[17], timeMs: row[18], trouble: row[19]}]->(b)
  RETURN 1 AS created
  UNION
  WITH row, old
  WHERE old IS NOT NULL
  SET old.w = old.w + row[7],
      old.d = old.d + row[8],
      old.l = old.l + row[9],
      old.ratingSum = old.ratingSum + row[10],
      old.ratedGames = old.ratedGames + row[11],
      old.timed = old.timed + row[17],
      old.timeMs = old.timeMs + row[18],
      old.trouble = old.trouble + row[19],
      old.first = CASE WHEN old.first = 0 OR (row[12] <> 0 AND row[12] < old.first) THEN row[12] ELSE old.first END,
      old.last = CASE WHEN row[13] > old.last THEN row[13] ELSE old.last END
  RETURN 0 AS created
}
RETURN sum(created) AS created
