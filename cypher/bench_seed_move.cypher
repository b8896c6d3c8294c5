// Benchmark peer only (`mirror bench ingest --store neo4j`): the seed's way of loading,
// one MERGE chain per move, each game in its own transaction, as MyLittleEngine loaded
// Chess.com games into Neo4j. mirror itself writes aggregated batches (write_*.cypher).
MERGE (a:Position {key: $from})
  ON CREATE SET a.epd = $fromEpd
MERGE (b:Position {key: $to})
  ON CREATE SET b.epd = $toEpd
MERGE (a)-[m:MOVE {player: $player, uci: $uci, color: $color, tc: $tc, rated: $rated, month: $month}]->(b)
  ON CREATE SET m.w = 0, m.d = 0, m.l = 0, m.ratingSum = 0, m.ratedGames = 0, m.first = $date, m.last = $date
SET m.w = m.w + $w, m.d = m.d + $d, m.l = m.l + $l
