// Adds a batch's aggregated edge rows that leave PlayerPositions the player already had
// (one row per edge key): finds the row by its key (a unique-index seek, whatever the
// number of rows between the two positions), adds to it, or creates it; returns how many
// it created. Rows are lists as in write_new_edges.cypher; $player is the same for all.
UNWIND $rows AS row
MATCH (a:PlayerPosition {player: $player, key: row[0]})
MATCH (b:PlayerPosition {player: $player, key: row[1]})
OPTIONAL MATCH ()-[old:MOVE {row: row[16]}]->()
WITH a, b, row, old
FOREACH (_ IN CASE WHEN old IS NULL THEN [1] ELSE [] END |
  CREATE (a)-[:MOVE {uci: row[2], color: row[3], tc: row[4],
                     rated: row[5], month: row[6], w: row[7], d: row[8], l: row[9],
                     ratingSum: row[10], ratedGames: row[11], first: row[12], last: row[13],
                     opp: row[14], src: row[15], row: row[16]}]->(b))
FOREACH (m IN CASE WHEN old IS NULL THEN [] ELSE [old] END |
  SET m.w = m.w + row[7],
      m.d = m.d + row[8],
      m.l = m.l + row[9],
      m.ratingSum = m.ratingSum + row[10],
      m.ratedGames = m.ratedGames + row[11],
      m.first = CASE WHEN m.first = 0 OR (row[12] <> 0 AND row[12] < m.first) THEN row[12] ELSE m.first END,
      m.last = CASE WHEN row[13] > m.last THEN row[13] ELSE m.last END)
RETURN sum(CASE WHEN old IS NULL THEN 1 ELSE 0 END) AS created
