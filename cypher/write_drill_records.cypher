// Stores drill records of a player ($player: the player's key; $rows: one list per card,
// [key, color, memory, stability, difficulty, due, reviews, lapses, retired, history] as
// drill_records.cypher reads them), each replacing the record of its card.
UNWIND $rows AS row
MERGE (c:DrillCard {player: $player, key: row[0], color: row[1]})
SET c.memory = row[2], c.stability = row[3], c.difficulty = row[4], c.due = row[5],
    c.reviews = row[6], c.lapses = row[7], c.retired = row[8], c.history = row[9]
