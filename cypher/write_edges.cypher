// Adds a batch's aggregated edge rows that leave positions already in the graph (one row
// per edge key): adds to an existing edge row, or creates it; returns how many it created.
UNWIND $rows AS row
MATCH (a:Position {key: row.from})
MATCH (b:Position {key: row.to})
OPTIONAL MATCH (a)-[old:MOVE {player: row.player, uci: row.uci, color: row.color, tc: row.tc, rated: row.rated, month: row.month}]->(b)
WITH a, b, row, old IS NULL AS isNew
MERGE (a)-[m:MOVE {player: row.player, uci: row.uci, color: row.color, tc: row.tc, rated: row.rated, month: row.month}]->(b)
  ON CREATE SET m.w = 0, m.d = 0, m.l = 0, m.ratingSum = 0, m.ratedGames = 0, m.first = row.first, m.last = row.last
SET m.w = m.w + row.w,
    m.d = m.d + row.d,
    m.l = m.l + row.l,
    m.ratingSum = m.ratingSum + row.ratingSum,
    m.ratedGames = m.ratedGames + row.ratedGames,
    m.first = CASE WHEN m.first = 0 OR (row.first <> 0 AND row.first < m.first) THEN row.first ELSE m.first END,
    m.last = CASE WHEN row.last > m.last THEN row.last ELSE m.last END
RETURN sum(CASE WHEN isNew THEN 1 ELSE 0 END) AS created
