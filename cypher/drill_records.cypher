// A player's drill records ($player: the player's key), one per card: its position key,
// the player's colour there, and what crates/mirror-store/src/drill.rs keeps of it
// (`memory`: whether it has been answered, then its stability and difficulty; `history`:
// at, grade and milliseconds of each answer, one after the other).
MATCH (c:DrillCard {player: $player})
RETURN c.key AS key, c.color AS color, c.memory AS memory, c.stability AS stability,
       c.difficulty AS difficulty, c.due AS due, c.reviews AS reviews, c.lapses AS lapses,
       c.retired AS retired, c.history AS history
