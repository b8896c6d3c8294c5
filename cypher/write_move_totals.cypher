// Adds a batch's move totals that leave PlayerPositions the player already had (rows as
// in write_new_totals.cypher): MERGE walks only the PLAYED relationships of the player's
// own node (one per move and colour, a few dozen at most), not its edge rows.
UNWIND $rows AS row
MATCH (a:PlayerPosition) WHERE elementId(a) = row[0]
MATCH (b:PlayerPosition) WHERE elementId(b) = row[1]
MERGE (a)-[t:PLAYED {uci: row[2], color: row[3]}]->(b)
  ON CREATE SET t.w = 0, t.d = 0, t.l = 0, t.ratingSum = 0, t.ratedGames = 0, t.first = row[9], t.last = row[10],
                t.timed = 0, t.timeMs = 0, t.trouble = 0
SET t.w = t.w + row[4],
    t.d = t.d + row[5],
    t.l = t.l + row[6],
    t.ratingSum = t.ratingSum + row[7],
    t.ratedGames = t.ratedGames + row[8],
    t.timed = t.timed + row[11],
    t.timeMs = t.timeMs + row[12],
    t.trouble = t.trouble + row[13],
    t.first = CASE WHEN t.first = 0 OR (row[9] <> 0 AND row[9] < t.first) THEN row[9] ELSE t.first END,
    t.last = CASE WHEN row[10] > t.last THEN row[10] ELSE t.last END
