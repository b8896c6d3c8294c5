// Adds a batch's aggregated edge rows that leave positions already in the graph (one row
// per edge key): adds to an existing edge row, or creates it; returns how many it created.
// Rows are lists as in write_new_edges.cypher; $player is the same for all.
UNWIND $rows AS row
MATCH (a:Position {key: row[0]})
MATCH (b:Position {key: row[1]})
OPTIONAL MATCH (a)-[old:MOVE {player: $player, uci: row[2], color: row[3], tc: row[4], rated: row[5], month: row[6], opp: row[14], src: row[15]}]->(b)
WITH a, b, row, old IS NULL AS isNew
MERGE (a)-[m:MOVE {player: $player, uci: row[2], color: row[3], tc: row[4], rated: row[5], month: row[6], opp: row[14], src: row[15]}]->(b)
  ON CREATE SET m.w = 0, m.d = 0, m.l = 0, m.ratingSum = 0, m.ratedGames = 0, m.first = row[12], m.last = row[13]
SET m.w = m.w + row[7],
    m.d = m.d + row[8],
    m.l = m.l + row[9],
    m.ratingSum = m.ratingSum + row[10],
    m.ratedGames = m.ratedGames + row[11],
    m.first = CASE WHEN m.first = 0 OR (row[12] <> 0 AND row[12] < m.first) THEN row[12] ELSE m.first END,
    m.last = CASE WHEN row[13] > m.last THEN row[13] ELSE m.last END
RETURN sum(CASE WHEN isNew THEN 1 ELSE 0 END) AS created
