// Constraints and indexes; idempotent, run on every connect. Statements end with a
// semicolon; comment lines are dropped before splitting.
CREATE CONSTRAINT mirror_position_key IF NOT EXISTS FOR (n:Position) REQUIRE n.key IS UNIQUE;
CREATE CONSTRAINT mirror_player_name IF NOT EXISTS FOR (p:Player) REQUIRE p.name IS UNIQUE;
CREATE CONSTRAINT mirror_game_id IF NOT EXISTS FOR (g:Game) REQUIRE g.id IS UNIQUE;
// The schema version's one mark: clients that set up a new graph at once merge the same
// node (see schema_version_set.cypher).
CREATE CONSTRAINT mirror_schema_mark IF NOT EXISTS FOR (s:MirrorSchema) REQUIRE s.mark IS UNIQUE;
// A player's own node of each position they reached: every read and write of a player
// starts here (one index seek), never at the shared Position, which thousands of players
// may share.
CREATE CONSTRAINT mirror_player_position IF NOT EXISTS FOR (n:PlayerPosition) REQUIRE (n.player, n.key) IS UNIQUE;
// Each edge row of a player has one key (player, position, move and dimensions): adding
// to a row seeks it here instead of walking the rows between two positions (which for a
// player's start position are one per game).
CREATE CONSTRAINT mirror_move_row IF NOT EXISTS FOR ()-[m:MOVE]-() REQUIRE m.row IS UNIQUE;
// Schema 4 kept an index on MOVE.player (and later dropped it); schema 5 has no such
// property. Dropped where an older mirror created it.
DROP INDEX mirror_move_player IF EXISTS;
// The evaluations' version has one node: analysers that store at once merge the same one.
CREATE CONSTRAINT mirror_evaluations_version IF NOT EXISTS FOR (v:EvaluationsVersion) REQUIRE v.mark IS UNIQUE;
CREATE INDEX mirror_fetch_unit IF NOT EXISTS FOR (f:FetchState) ON (f.player, f.unit);
CREATE INDEX mirror_account_player IF NOT EXISTS FOR (a:Account) ON (a.player);
// A player's drill record of a card: one per (player, position, colour).
CREATE CONSTRAINT mirror_drill_card IF NOT EXISTS FOR (c:DrillCard) REQUIRE (c.player, c.key, c.color) IS UNIQUE;
