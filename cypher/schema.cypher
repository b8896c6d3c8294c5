// Constraints and indexes; idempotent, run on every connect. Statements end with a
// semicolon; comment lines are dropped before splitting.
CREATE CONSTRAINT mirror_position_key IF NOT EXISTS FOR (n:Position) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT mirror_player_name IF NOT EXISTS FOR (p:Player) REQUIRE p.name IS UNIQUE;
CREATE CONSTRAINT mirror_game_id IF NOT EXISTS FOR (g:Game) REQUIRE g.id IS UNIQUE;
CREATE INDEX mirror_move_player IF NOT EXISTS FOR ()-[m:MOVE]-() ON (m.player);
CREATE INDEX mirror_fetch_unit IF NOT EXISTS FOR (f:FetchState) ON (f.player, f.unit);
