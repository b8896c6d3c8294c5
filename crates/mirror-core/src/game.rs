//! Game records: who played, how it ended, and the moves, with a compact binary form.

use std::fmt;

use shakmaty::{Chess, Color, Position};

use crate::{
    MoveCode, PositionKey,
    clock::MoveTime,
    moves::IllegalMoveCode,
    time::{Date, TimeClass},
};

/// Identity of a game in its source: a Chess.com/lichess game URL, or `pgn:` and a hash of
/// the date, result and moves (see [`crate::pgn`]). Re-ingesting a game with the same id
/// never counts it twice.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(pub String);

impl GameId {
    /// The game's page on the site that played it (Chess.com or lichess), where its id is
    /// that address; `None` for a game from a PGN file without one.
    pub fn url(&self) -> Option<&str> {
        let lower = self.0.to_ascii_lowercase();
        let site = [
            "https://www.chess.com/",
            "https://chess.com/",
            "https://lichess.org/",
        ];
        site.iter()
            .any(|s| lower.starts_with(s))
            .then_some(self.0.as_str())
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a game was played, as its identity says: a Chess.com or lichess game URL (or a
/// Chess.com game's uuid), else `Otb` (over the board, or any other site's PGN). A
/// Chess.com game imported from a PGN file with its `Link` tag is a Chess.com game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameSource {
    /// Over the board or another site: a PGN game without a Chess.com or lichess URL.
    Otb,
    /// Chess.com.
    Chesscom,
    /// lichess.org.
    Lichess,
}

impl GameSource {
    /// All sources, in code order.
    pub const ALL: [GameSource; 3] = [GameSource::Otb, GameSource::Chesscom, GameSource::Lichess];

    /// The source of a game with this identity.
    pub fn of_id(id: &GameId) -> GameSource {
        let lower = id.0.to_ascii_lowercase();
        if lower.starts_with("chess.com:") || lower.contains("chess.com/") {
            GameSource::Chesscom
        } else if lower.contains("lichess.org/") {
            GameSource::Lichess
        } else {
            GameSource::Otb
        }
    }

    /// Lower-case name: `chesscom`, `lichess`, `otb`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameSource::Otb => "otb",
            GameSource::Chesscom => "chesscom",
            GameSource::Lichess => "lichess",
        }
    }

    /// The code used in store keys (0-2).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Inverse of [`GameSource::code`].
    pub fn from_code(code: u8) -> Option<GameSource> {
        GameSource::ALL.get(usize::from(code)).copied()
    }
}

impl fmt::Display for GameSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A game source name that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown game source {0:?}: expected chesscom, lichess or otb")]
pub struct ParseGameSourceError(pub String);

impl std::str::FromStr for GameSource {
    type Err = ParseGameSourceError;

    fn from_str(s: &str) -> Result<GameSource, ParseGameSourceError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "chesscom" | "chess.com" => Ok(GameSource::Chesscom),
            "lichess" | "lichess.org" => Ok(GameSource::Lichess),
            "otb" | "pgn" => Ok(GameSource::Otb),
            _ => Err(ParseGameSourceError(s.to_string())),
        }
    }
}

/// One side of a game.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PlayerSide {
    /// The name as written in the source.
    pub name: String,
    /// Rating at the time of the game, when known.
    pub rating: Option<u16>,
}

/// How a game ended, from White's side.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// 1-0.
    WhiteWins,
    /// 0-1.
    BlackWins,
    /// 1/2-1/2.
    Draw,
}

/// How a game ended for one player.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The player won.
    Win,
    /// Drawn.
    Draw,
    /// The player lost.
    Loss,
}

impl GameResult {
    /// The outcome for the player who had `color`.
    pub fn outcome_for(self, color: Color) -> Outcome {
        match (self, color) {
            (GameResult::Draw, _) => Outcome::Draw,
            (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => {
                Outcome::Win
            }
            _ => Outcome::Loss,
        }
    }

    /// PGN result text.
    pub fn as_pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    fn code(self) -> u8 {
        match self {
            GameResult::WhiteWins => 1,
            GameResult::BlackWins => 2,
            GameResult::Draw => 3,
        }
    }

    fn from_code(code: u8) -> Option<GameResult> {
        match code {
            1 => Some(GameResult::WhiteWins),
            2 => Some(GameResult::BlackWins),
            3 => Some(GameResult::Draw),
            _ => None,
        }
    }
}

/// A finished game of standard chess from the standard start position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// Identity in its source.
    pub id: GameId,
    /// White.
    pub white: PlayerSide,
    /// Black.
    pub black: PlayerSide,
    /// The result.
    pub result: GameResult,
    /// Time class.
    pub time_class: TimeClass,
    /// Rated (true) or casual.
    pub rated: bool,
    /// When the game was played (end date where the source gives one).
    pub date: Option<Date>,
    /// The mainline, from the standard start position.
    pub moves: Vec<MoveCode>,
    /// The time of each move (see [`crate::clock`]): empty when the game records none,
    /// else one entry per move of `moves`.
    pub times: Vec<Option<MoveTime>>,
    /// The evaluation each move's comment gave of the position after it (`[%eval]`,
    /// [`crate::evaluation::comment_eval`]: score, depth): empty when no comment gives one,
    /// else one entry per move. Read at ingest for the positions; not kept with the
    /// stored record (a stored record decodes without them).
    pub evals: Vec<Option<(crate::evaluation::EvalScore, u16)>>,
}

/// A stored record that could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("corrupt game record: {0}")]
pub struct CorruptRecord(pub &'static str);

/// The record's version: 2 adds the moves' times (version 1 records, without them, still
/// decode).
const RECORD_VERSION: u8 = 2;

impl GameRecord {
    /// The colour the player known by any of `names` played in this game
    /// (case-insensitive), or `None` when neither side or both sides match.
    pub fn color_of<S: AsRef<str>>(&self, names: &[S]) -> Option<Color> {
        let is = |side: &PlayerSide| {
            names
                .iter()
                .any(|n| side.name.eq_ignore_ascii_case(n.as_ref()))
        };
        match (is(&self.white), is(&self.black)) {
            (true, false) => Some(Color::White),
            (false, true) => Some(Color::Black),
            _ => None,
        }
    }

    /// Where the game was played (from its identity).
    pub fn source(&self) -> GameSource {
        GameSource::of_id(&self.id)
    }

    /// The side that played `color`.
    pub fn side(&self, color: Color) -> &PlayerSide {
        match color {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    /// Replays the game: each item is the position before a move, its key, and the move.
    pub fn replay(&self) -> Replay<'_> {
        Replay {
            pos: Chess::default(),
            moves: self.moves.iter(),
        }
    }

    /// Whether every move replays (a stored game that does not is a damaged store): the
    /// first move that does not, as the error. Code that replays checked games may stop
    /// at an error without losing a move.
    pub fn check_replay(&self) -> Result<(), crate::moves::IllegalMoveCode> {
        self.replay().try_for_each(|ply| ply.map(|_| ()))
    }

    /// Compact binary form (the store keeps every game this way).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(48 + self.id.0.len() + 2 * self.moves.len());
        out.push(RECORD_VERSION);
        put_str(&mut out, &self.id.0);
        for side in [&self.white, &self.black] {
            put_str(&mut out, &side.name);
            out.extend_from_slice(&side.rating.unwrap_or(0).to_le_bytes());
        }
        out.push(self.result.code());
        out.push(self.time_class as u8);
        out.push(u8::from(self.rated));
        out.extend_from_slice(&self.date.map_or(0, Date::to_u32).to_le_bytes());
        let n = u32::try_from(self.moves.len()).unwrap_or(u32::MAX);
        out.extend_from_slice(&n.to_le_bytes());
        for m in &self.moves {
            out.extend_from_slice(&m.0.to_le_bytes());
        }
        out.push(u8::from(!self.times.is_empty()));
        if !self.times.is_empty() {
            for t in &self.times {
                // 0 = no time; else (spent << 1 | trouble) + 1, then the clock left + 1
                // (0 = unknown).
                match t {
                    None => put_varint(&mut out, 0),
                    Some(t) => {
                        put_varint(
                            &mut out,
                            (u64::from(t.spent_ms) << 1 | u64::from(t.trouble)) + 1,
                        );
                        put_varint(&mut out, t.left_ms.map_or(0, |l| u64::from(l) + 1));
                    }
                }
            }
        }
        out
    }

    /// Inverse of [`GameRecord::encode`].
    pub fn decode(bytes: &[u8]) -> Result<GameRecord, CorruptRecord> {
        let mut r = ByteReader(bytes);
        let version = r.u8()?;
        if version != RECORD_VERSION && version != 1 {
            return Err(CorruptRecord("unknown record version"));
        }
        let id = GameId(r.string()?);
        let mut sides = [PlayerSide::default(), PlayerSide::default()];
        for side in &mut sides {
            side.name = r.string()?;
            side.rating = Some(r.u16()?).filter(|v| *v != 0);
        }
        let [white, black] = sides;
        let result = GameResult::from_code(r.u8()?).ok_or(CorruptRecord("bad result"))?;
        let time_class = TimeClass::from_code(r.u8()?);
        let rated = r.u8()? != 0;
        let date = Date::from_u32(r.u32()?);
        let n = r.u32()? as usize;
        if r.0.len() < 2 * n || (version == 1 && r.0.len() != 2 * n) {
            return Err(CorruptRecord("move list length"));
        }
        let moves = r
            .take(2 * n)?
            .chunks_exact(2)
            .map(|c| MoveCode(u16::from_le_bytes([c[0], c[1]])))
            .collect();
        let times = if version == 1 || r.u8()? == 0 {
            Vec::new()
        } else {
            (0..n).map(|_| r.move_time()).collect::<Result<_, _>>()?
        };
        if !r.0.is_empty() {
            return Err(CorruptRecord("bytes after the record"));
        }
        Ok(GameRecord {
            id,
            white,
            black,
            result,
            time_class,
            rated,
            date,
            moves,
            times,
            evals: Vec::new(),
        })
    }

    /// The time of the move at `ply` (0-based), when the game records one.
    pub fn time_of(&self, ply: usize) -> Option<MoveTime> {
        self.times.get(ply).copied().flatten()
    }
}

/// Iterator over a game's plies; see [`GameRecord::replay`].
#[derive(Debug)]
pub struct Replay<'a> {
    pos: Chess,
    moves: std::slice::Iter<'a, MoveCode>,
}

/// One ply of a replayed game.
#[derive(Debug, Clone)]
pub struct Ply {
    /// The position before the move.
    pub pos: Chess,
    /// Its key.
    pub key: PositionKey,
    /// The move played.
    pub code: MoveCode,
    /// The legal move in `pos`.
    pub mv: shakmaty::Move,
}

impl Iterator for Replay<'_> {
    type Item = Result<Ply, IllegalMoveCode>;

    fn next(&mut self) -> Option<Self::Item> {
        let code = *self.moves.next()?;
        let pos = self.pos.clone();
        match code.to_move(&pos) {
            Ok(mv) => {
                self.pos.play_unchecked(mv);
                Some(Ok(Ply {
                    key: PositionKey::from_position(&pos),
                    pos,
                    code,
                    mv,
                }))
            }
            Err(e) => {
                self.moves = [].iter();
                Some(Err(e))
            }
        }
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    let len = u16::try_from(s.len()).unwrap_or(u16::MAX);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&s.as_bytes()[..usize::from(len)]);
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

struct ByteReader<'a>(&'a [u8]);

impl ByteReader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], CorruptRecord> {
        if self.0.len() < n {
            return Err(CorruptRecord("truncated"));
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }
    fn u8(&mut self) -> Result<u8, CorruptRecord> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> Result<u16, CorruptRecord> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, CorruptRecord> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn varint(&mut self) -> Result<u64, CorruptRecord> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.u8()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(CorruptRecord("overlong number"))
    }
    fn move_time(&mut self) -> Result<Option<MoveTime>, CorruptRecord> {
        let Some(v) = self.varint()?.checked_sub(1) else {
            return Ok(None);
        };
        let spent_ms = u32::try_from(v >> 1).map_err(|_| CorruptRecord("move time"))?;
        let left = self.varint()?;
        let left_ms = match left.checked_sub(1) {
            None => None,
            Some(l) => Some(u32::try_from(l).map_err(|_| CorruptRecord("clock left"))?),
        };
        Ok(Some(MoveTime {
            spent_ms,
            left_ms,
            trouble: v & 1 == 1,
        }))
    }
    fn string(&mut self) -> Result<String, CorruptRecord> {
        let n = usize::from(self.u16()?);
        let b = self.take(n)?;
        String::from_utf8(b.to_vec()).map_err(|_| CorruptRecord("not utf-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> GameRecord {
        GameRecord {
            id: GameId("https://www.chess.com/game/live/1960894102".into()),
            white: PlayerSide {
                name: "Biskupstunga".into(),
                rating: Some(929),
            },
            black: PlayerSide {
                name: "DARTH-ZANE".into(),
                rating: None,
            },
            result: GameResult::WhiteWins,
            time_class: TimeClass::Rapid,
            rated: true,
            date: Date::from_pgn("2017.02.20"),
            moves: ["e2e4", "d7d5", "e4d5"]
                .iter()
                .map(|u| MoveCode::from_uci(&u.parse().expect("uci")).expect("normal move"))
                .collect(),
            times: vec![
                Some(MoveTime {
                    spent_ms: 100,
                    left_ms: Some(179_900),
                    trouble: false,
                }),
                None,
                Some(MoveTime {
                    spent_ms: 175_000,
                    left_ms: None,
                    trouble: true,
                }),
            ],
            evals: Vec::new(),
        }
    }

    #[test]
    fn record_round_trips() {
        let g = sample();
        let bytes = g.encode();
        assert_eq!(GameRecord::decode(&bytes), Ok(g.clone()));
        assert!(GameRecord::decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(GameRecord::decode(&[]).is_err());
        let untimed = GameRecord {
            times: Vec::new(),
            ..g
        };
        assert_eq!(GameRecord::decode(&untimed.encode()), Ok(untimed.clone()));
        // A version 1 record (before times were kept): the same bytes without the times'
        // flag.
        let mut v1 = untimed.encode();
        v1[0] = 1;
        v1.pop();
        assert_eq!(GameRecord::decode(&v1), Ok(untimed));
    }

    #[test]
    fn outcome_from_each_side() {
        assert_eq!(
            GameResult::WhiteWins.outcome_for(Color::White),
            Outcome::Win
        );
        assert_eq!(
            GameResult::WhiteWins.outcome_for(Color::Black),
            Outcome::Loss
        );
        assert_eq!(
            GameResult::BlackWins.outcome_for(Color::Black),
            Outcome::Win
        );
        assert_eq!(GameResult::Draw.outcome_for(Color::Black), Outcome::Draw);
    }

    #[test]
    fn player_matching_is_case_insensitive_with_aliases() {
        let g = sample();
        assert_eq!(g.color_of(&["biskupstunga"]), Some(Color::White));
        assert_eq!(g.color_of(&["darth-zane"]), Some(Color::Black));
        assert_eq!(g.color_of(&["x", "Darth-Zane"]), Some(Color::Black));
        assert_eq!(g.color_of(&["nobody"]), None);
        assert_eq!(g.color_of(&["biskupstunga", "darth-zane"]), None);
    }

    #[test]
    fn a_game_source_comes_from_its_identity() {
        let src = |id: &str| GameSource::of_id(&GameId(id.into()));
        assert_eq!(
            src("https://www.chess.com/game/live/1960894102"),
            GameSource::Chesscom
        );
        assert_eq!(src("chess.com:3f2a-uuid"), GameSource::Chesscom);
        assert_eq!(src("https://lichess.org/K1j60I2N"), GameSource::Lichess);
        assert_eq!(src("pgn:0123abcd"), GameSource::Otb);
        for s in GameSource::ALL {
            assert_eq!(GameSource::from_code(s.code()), Some(s));
            assert_eq!(s.as_str().parse::<GameSource>(), Ok(s));
        }
        assert!("icc".parse::<GameSource>().is_err());
    }

    #[test]
    fn a_game_that_does_not_replay_names_its_first_bad_move() {
        let mut g = sample();
        assert!(g.check_replay().is_ok());
        // Black plays White's first move again: not legal.
        g.moves[1] = g.moves[0];
        let e = g.check_replay().expect_err("e2e4 twice");
        assert_eq!(e.0, g.moves[0]);
        assert_eq!(
            g.replay().filter(Result::is_ok).count(),
            1,
            "one move replays"
        );
    }

    #[test]
    fn replay_yields_positions_before_moves() {
        let g = sample();
        let plies: Vec<Ply> = g.replay().collect::<Result<_, _>>().expect("legal");
        assert_eq!(plies.len(), 3);
        assert_eq!(plies[0].key, PositionKey::from_position(&Chess::default()));
        assert_eq!(plies[2].code.to_string(), "e4d5");
    }
}
