//! PGN decoding into [`GameRecord`]s with pgn-reader and shakmaty.
//!
//! Mainline only: variations are skipped by the reader, comments are read for their clock
//! commands only (`[%clk]`, `[%emt]`: [`crate::clock`]), NAGs are ignored, a byte-order
//! mark is fine. Games that are not standard chess from the standard start position are
//! skipped with a [`SkipReason`]; a game with an
//! illegal or unreadable move is a [`GameError`] naming the ply and the move text. Moves
//! written in UCI (`g1f3`) are accepted where SAN fails.

use std::{fmt, io::Read, ops::ControlFlow};

use pgn_reader::{
    KnownOutcome, Outcome as PgnOutcome, RawComment, RawTag, Reader, SanPlus, Visitor,
};
use shakmaty::{CastlingMode, Chess, Color, Position, Square, fen::Fen, san::San, uci::UciMove};

use crate::{
    GameId, GameRecord, GameResult, MoveCode, PlayerSide,
    clock::{Control, Stamp, move_times},
    time::{Convention, Date, TimeClass},
};

/// Why a game was left out although it was readable.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// A chess variant (`[Variant "..."]` other than standard, e.g. Chess960, Crazyhouse).
    Variant(String),
    /// A set-up start position (`[SetUp "1"]` or a `[FEN]` other than the start position).
    NonStandardStart,
    /// No result (`*` or missing): wins, draws and losses cannot be counted.
    Unfinished,
    /// No moves at all.
    NoMoves,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::Variant(v) => write!(f, "variant {v}"),
            SkipReason::NonStandardStart => f.write_str("non-standard start position"),
            SkipReason::Unfinished => f.write_str("no result"),
            SkipReason::NoMoves => f.write_str("no moves"),
        }
    }
}

/// Why a move of a game cannot be taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveFault {
    /// Not a legal move (or not one move) in the position, as SAN or UCI.
    #[error(transparent)]
    Illegal(#[from] shakmaty::san::SanError),
    /// Legal, but not standard chess (a drop, a null move).
    #[error(transparent)]
    Unsupported(#[from] crate::moves::UnsupportedMove),
}

/// What is wrong with a game that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameFault {
    /// A move cannot be played in the position reached (given as FEN).
    #[error("{fault} in {fen}")]
    Move {
        /// Why.
        #[source]
        fault: MoveFault,
        /// The position, as FEN.
        fen: String,
    },
    /// The PGN reader could not parse the game's text (the game is skipped to its end).
    #[error("unreadable ({detail}; a tag line may be over {TAG_LINE_BYTES} bytes)")]
    Unreadable {
        /// The reader's error, as it said it.
        detail: String,
    },
    /// A site's game record whose `pgn` field could not be read.
    #[error("unreadable pgn field: {detail}")]
    UnreadableField {
        /// The reader's error, as it said it.
        detail: String,
    },
}

/// A game that could not be read: the first bad move (or, at ply 0, its text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameError {
    /// 1-based ply of the bad move; 0 when the game's text could not be parsed at all.
    pub ply: u32,
    /// The move as written.
    pub move_text: String,
    /// What is wrong with it.
    pub reason: GameFault,
}

impl std::error::Error for GameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.reason)
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ply == 0 {
            return write!(f, "{}", self.reason);
        }
        write!(
            f,
            "ply {} ({}{}): {:?} is {}",
            self.ply,
            self.ply.div_ceil(2),
            if self.ply % 2 == 1 { "." } else { "..." },
            self.move_text,
            self.reason
        )
    }
}

/// What decoding one game gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decoded {
    /// A standard game, ready to ingest.
    Game(GameRecord),
    /// Readable, but not something mirror counts.
    Skipped(SkipReason),
    /// A game with an illegal or unreadable move.
    Invalid(GameError),
}

/// Tags collected before the movetext.
#[derive(Default, Debug)]
pub struct Tags {
    white: String,
    black: String,
    white_elo: Option<u16>,
    black_elo: Option<u16>,
    result: Option<GameResult>,
    date: Option<Date>,
    end_date: Option<Date>,
    utc_date: Option<Date>,
    time_control: String,
    site: String,
    link: String,
    event: String,
    variant: Option<String>,
    setup: bool,
    fen: Option<String>,
}

impl Tags {
    /// Why a game with these tags is not standard chess from the start position, if it
    /// is not.
    fn skip_reason(&self) -> Option<SkipReason> {
        if let Some(v) = &self.variant
            && !is_standard_variant(v)
        {
            return Some(SkipReason::Variant(v.clone()));
        }
        let start_is_standard = match &self.fen {
            None => !self.setup,
            Some(fen) => fen
                .parse::<Fen>()
                .ok()
                .and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).ok())
                .is_some_and(|p| p == Chess::default()),
        };
        (!start_is_standard).then_some(SkipReason::NonStandardStart)
    }
}

/// The mainline being replayed.
#[derive(Debug)]
pub struct Movetext {
    tags: Tags,
    pos: Chess,
    moves: Vec<MoveCode>,
    /// What each move's comments said about time (parallel to `moves`).
    stamps: Vec<Stamp>,
    /// What each move's comments said of the position after it (`[%eval]`; parallel).
    evals: Vec<Option<(crate::evaluation::EvalScore, u16)>>,
    outcome: Option<GameResult>,
}

/// A pgn-reader visitor producing one [`Decoded`] per game.
#[derive(Debug, Default)]
pub struct GameVisitor;

fn tag_string(value: RawTag<'_>) -> String {
    value.decode_utf8_lossy().trim().to_string()
}

fn parse_elo(value: RawTag<'_>) -> Option<u16> {
    std::str::from_utf8(value.as_bytes())
        .ok()?
        .trim()
        .parse::<u16>()
        .ok()
        .filter(|r| *r > 0)
}

fn parse_result(text: &str) -> Option<GameResult> {
    match text.trim() {
        "1-0" => Some(GameResult::WhiteWins),
        "0-1" => Some(GameResult::BlackWins),
        "1/2-1/2" | "½-½" => Some(GameResult::Draw),
        _ => None,
    }
}

fn is_standard_variant(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "" | "standard" | "chess" | "normal" | "from position" | "fromposition"
    )
}

impl Visitor for GameVisitor {
    type Tags = Tags;
    type Movetext = Movetext;
    type Output = Decoded;

    fn begin_tags(&mut self) -> ControlFlow<Decoded, Tags> {
        ControlFlow::Continue(Tags::default())
    }

    fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<Decoded> {
        match name {
            b"White" => tags.white = tag_string(value),
            b"Black" => tags.black = tag_string(value),
            b"WhiteElo" => tags.white_elo = parse_elo(value),
            b"BlackElo" => tags.black_elo = parse_elo(value),
            b"Result" => tags.result = parse_result(&tag_string(value)),
            b"Date" => tags.date = Date::from_pgn(&tag_string(value)),
            b"EndDate" => tags.end_date = Date::from_pgn(&tag_string(value)),
            b"UTCDate" => tags.utc_date = Date::from_pgn(&tag_string(value)),
            b"TimeControl" => tags.time_control = tag_string(value),
            b"Site" => tags.site = tag_string(value),
            b"Link" => tags.link = tag_string(value),
            b"Event" => tags.event = tag_string(value),
            b"Variant" => tags.variant = Some(tag_string(value)),
            b"SetUp" => tags.setup = value.as_bytes() == b"1",
            b"FEN" => tags.fen = Some(tag_string(value)),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<Decoded, Movetext> {
        if let Some(reason) = tags.skip_reason() {
            return ControlFlow::Break(Decoded::Skipped(reason));
        }
        ControlFlow::Continue(Movetext {
            tags,
            pos: Chess::default(),
            moves: Vec::with_capacity(96),
            stamps: Vec::with_capacity(96),
            evals: Vec::with_capacity(96),
            outcome: None,
        })
    }

    fn san(&mut self, mt: &mut Movetext, san_plus: SanPlus) -> ControlFlow<Decoded> {
        let m = match san_plus.san.to_move(&mt.pos) {
            Ok(m) => Ok(m),
            Err(err) => uci_fallback(&san_plus.san, &mt.pos).ok_or(err),
        };
        let code = m.map_err(MoveFault::from).and_then(|m| {
            MoveCode::from_move(&m)
                .map(|c| (m, c))
                .map_err(MoveFault::from)
        });
        match code {
            Ok((m, code)) => {
                mt.pos.play_unchecked(m);
                mt.moves.push(code);
                mt.stamps.push(Stamp::default());
                mt.evals.push(None);
                ControlFlow::Continue(())
            }
            Err(fault) => ControlFlow::Break(Decoded::Invalid(GameError {
                ply: u32::try_from(mt.moves.len() + 1).unwrap_or(u32::MAX),
                move_text: san_plus.to_string(),
                reason: GameFault::Move {
                    fault,
                    fen: Fen::from_position(&mt.pos, shakmaty::EnPassantMode::Legal).to_string(),
                },
            })),
        }
    }

    fn comment(&mut self, mt: &mut Movetext, comment: RawComment<'_>) -> ControlFlow<Decoded> {
        // A mainline comment after a move (variations are skipped, their comments too).
        if let Some(stamp) = mt.stamps.last_mut() {
            stamp.read_comment(comment.as_bytes());
        }
        if let Some(slot @ None) = mt.evals.last_mut() {
            *slot = crate::evaluation::comment_eval(comment.as_bytes());
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, mt: &mut Movetext, outcome: PgnOutcome) -> ControlFlow<Decoded> {
        mt.outcome = match outcome {
            PgnOutcome::Known(KnownOutcome::Decisive {
                winner: Color::White,
            }) => Some(GameResult::WhiteWins),
            PgnOutcome::Known(KnownOutcome::Decisive {
                winner: Color::Black,
            }) => Some(GameResult::BlackWins),
            PgnOutcome::Known(KnownOutcome::Draw) => Some(GameResult::Draw),
            PgnOutcome::Unknown => None,
        };
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, mt: Movetext) -> Decoded {
        let Movetext {
            tags,
            moves,
            stamps,
            evals,
            outcome,
            ..
        } = mt;
        let Some(result) = tags.result.or(outcome) else {
            return Decoded::Skipped(SkipReason::Unfinished);
        };
        if moves.is_empty() {
            return Decoded::Skipped(SkipReason::NoMoves);
        }
        let date = tags.end_date.or(tags.utc_date).or(tags.date);
        let id = game_id(&tags, date, result, &moves);
        let convention = if is_chess_com(&tags) {
            Convention::ChessCom
        } else {
            Convention::Lichess
        };
        let event = tags.event.to_ascii_lowercase();
        // An over-the-board game (no site's address) without a TimeControl tag: by its
        // event (a master's games are mostly classical; "World Blitz" is not).
        let untimed = matches!(tags.time_control.trim(), "" | "?");
        let time_class =
            if untimed && crate::game::GameSource::of_id(&id) == crate::game::GameSource::Otb {
                TimeClass::of_otb_event(&tags.event)
            } else {
                TimeClass::from_time_control(&tags.time_control, convention)
            };
        Decoded::Game(GameRecord {
            id,
            white: PlayerSide {
                name: tags.white,
                rating: tags.white_elo,
            },
            black: PlayerSide {
                name: tags.black,
                rating: tags.black_elo,
            },
            result,
            time_class,
            rated: !event.contains("casual"),
            date,
            moves,
            times: move_times(&stamps, Control::from_tag(&tags.time_control)),
            evals: if evals.iter().any(Option::is_some) {
                evals
            } else {
                Vec::new()
            },
        })
    }
}

/// Reads a move written in UCI (`g1f3`, `e7e8q`) that pgn-reader tokenised as SAN.
fn uci_fallback(san: &San, pos: &Chess) -> Option<shakmaty::Move> {
    if let San::Normal {
        role: shakmaty::Role::Pawn,
        file: Some(file),
        rank: Some(rank),
        capture: false,
        to,
        promotion,
    } = *san
    {
        let uci = UciMove::Normal {
            from: Square::from_coords(file, rank),
            to,
            promotion,
        };
        return uci.to_move(pos).ok();
    }
    None
}

fn is_chess_com(tags: &Tags) -> bool {
    tags.site.eq_ignore_ascii_case("chess.com") || tags.link.contains("chess.com/")
}

/// The source's game URL where there is one, otherwise `pgn:` + a hash of date, result and
/// moves (and, for games under 20 plies, the players, event and round are not known
/// here, so the players' names are added to keep short draws apart).
fn game_id(tags: &Tags, date: Option<Date>, result: GameResult, moves: &[MoveCode]) -> GameId {
    for url in [&tags.link, &tags.site] {
        let lower = url.to_ascii_lowercase();
        if (lower.contains("chess.com/game/") || lower.contains("lichess.org/"))
            && lower.starts_with("http")
        {
            return GameId(url.trim_end_matches('/').to_string());
        }
    }
    let mut bytes = Vec::with_capacity(16 + 2 * moves.len());
    bytes.extend_from_slice(&date.map_or(0, Date::to_u32).to_le_bytes());
    bytes.extend_from_slice(result.as_pgn().as_bytes());
    for m in moves {
        bytes.extend_from_slice(&m.0.to_le_bytes());
    }
    if moves.len() < 20 {
        for name in [&tags.white, &tags.black, &tags.event] {
            bytes.push(0);
            bytes.extend_from_slice(name.to_lowercase().as_bytes());
        }
    }
    GameId(format!("pgn:{:032x}", xxhash_rust::xxh3::xxh3_128(&bytes)))
}

/// The players of a standard game (White, Black), as its tags name them; `None` for a
/// game that [`read_games`] skips for its variant or start position.
pub type Sides = Option<(String, String)>;

/// A pgn-reader visitor that reads the tags only and skips the movetext (a fast first
/// pass over a corpus, to count each player's games).
#[derive(Debug, Default)]
struct SidesVisitor;

impl Visitor for SidesVisitor {
    type Tags = Tags;
    type Movetext = ();
    type Output = Sides;

    fn begin_tags(&mut self) -> ControlFlow<Sides, Tags> {
        ControlFlow::Continue(Tags::default())
    }

    fn tag(&mut self, tags: &mut Tags, name: &[u8], value: RawTag<'_>) -> ControlFlow<Sides> {
        match name {
            b"White" => tags.white = tag_string(value),
            b"Black" => tags.black = tag_string(value),
            b"Variant" => tags.variant = Some(tag_string(value)),
            b"SetUp" => tags.setup = value.as_bytes() == b"1",
            b"FEN" => tags.fen = Some(tag_string(value)),
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Tags) -> ControlFlow<Sides, ()> {
        ControlFlow::Break(match tags.skip_reason() {
            Some(_) => None,
            None => Some((tags.white, tags.black)),
        })
    }

    fn end_game(&mut self, (): ()) -> Sides {
        None
    }
}

/// Reads the players of every game of a PGN stream, skipping the moves (see [`Sides`]).
/// A game the reader cannot parse is no game of anyone's, as in [`read_games`].
pub fn read_sides<R: Read>(input: R) -> impl Iterator<Item = std::io::Result<Sides>> {
    let mut reader = pgn_reader(input);
    let mut visitor = SidesVisitor;
    std::iter::from_fn(move || match reader.read_game(&mut visitor) {
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            Some(reader.skip_game().map(|_| None))
        }
        other => other.transpose(),
    })
}

/// pgn-reader's reader with room for tag lines of [`TAG_LINE_BYTES`].
fn pgn_reader<R: Read>(input: R) -> Reader<R> {
    Reader::build(input)
        .set_supported_tag_line_length(TAG_LINE_BYTES)
        .finish()
}

/// Longest tag line read (a longer one makes its game invalid, and reading goes on).
pub const TAG_LINE_BYTES: usize = 16 * 1024;

/// Reads every game of a PGN stream; items are numbered from 1.
pub fn read_games<R: Read>(input: R) -> Games<R> {
    Games {
        reader: pgn_reader(input),
        visitor: GameVisitor,
        number: 0,
    }
}

/// Iterator over the games of a PGN stream: `(game number, decoded)` or an I/O error.
#[derive(Debug)]
pub struct Games<R> {
    reader: Reader<R>,
    visitor: GameVisitor,
    number: u64,
}

impl<R: Read> Iterator for Games<R> {
    type Item = std::io::Result<(u64, Decoded)>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.reader.read_game(&mut self.visitor) {
            Ok(Some(decoded)) => {
                self.number += 1;
                Some(Ok((self.number, decoded)))
            }
            Ok(None) => None,
            // A game the reader cannot parse (a tag line over its buffer, a comment never
            // closed): that game is invalid, the rest of the game is skipped and the next
            // one read.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                self.number += 1;
                let number = self.number;
                match self.reader.skip_game() {
                    Ok(_) => Some(Ok((
                        number,
                        Decoded::Invalid(GameError {
                            ply: 0,
                            move_text: String::new(),
                            reason: GameFault::Unreadable {
                                detail: e.to_string(),
                            },
                        }),
                    ))),
                    Err(e) => Some(Err(e)),
                }
            }
            Err(e) => Some(Err(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(pgn: &[u8]) -> Vec<Decoded> {
        read_games(pgn).map(|r| r.expect("io").1).collect()
    }

    fn path(rel: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/pgn")
            .join(rel)
    }

    #[test]
    fn comments_variations_nags_and_clocks() {
        let pgn = b"[Event \"t\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n\
            1. e4 {[%clk 0:03:00]} e5 $1 (1... c5 2. Nf3) 2. Nf3!? ; rest\n Nc6 1-0\n";
        let out = decode_all(pgn);
        let [Decoded::Game(g)] = out.as_slice() else {
            panic!("{out:?}")
        };
        let moves: Vec<String> = g.moves.iter().map(ToString::to_string).collect();
        assert_eq!(moves, ["e2e4", "e7e5", "g1f3", "b8c6"]);
        assert_eq!(g.result, GameResult::WhiteWins);
        assert!(g.id.0.starts_with("pgn:"));
    }

    #[test]
    fn illegal_move_names_ply_and_text() {
        let pgn = b"[Result \"1-0\"]\n\n1. e4 e5 2. Ke3 Nc6 1-0\n\n[Result \"0-1\"]\n\n1. d4 0-1\n";
        let out = decode_all(pgn);
        assert_eq!(out.len(), 2, "the next game is still read");
        let Decoded::Invalid(err) = &out[0] else {
            panic!("{out:?}")
        };
        assert_eq!((err.ply, err.move_text.as_str()), (3, "Ke3"));
        assert!(err.to_string().contains("ply 3 (2.)"), "{err}");
        assert!(matches!(out[1], Decoded::Game(_)));
    }

    #[test]
    fn skips_by_reason() {
        let pgn = b"[Variant \"Chess960\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n\
            [SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]\n[Result \"1-0\"]\n\n1. Kb1 1-0\n\n\
            [Result \"*\"]\n\n1. e4 *\n\n\
            [FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n[Result \"0-1\"]\n\n1. e4 0-1\n";
        let out = decode_all(pgn);
        assert_eq!(
            out[0],
            Decoded::Skipped(SkipReason::Variant("Chess960".into()))
        );
        assert_eq!(out[1], Decoded::Skipped(SkipReason::NonStandardStart));
        assert_eq!(out[2], Decoded::Skipped(SkipReason::Unfinished));
        assert!(
            matches!(out[3], Decoded::Game(_)),
            "standard FEN is a normal game"
        );
    }

    /// A tag line longer than the reader's buffer makes its game invalid; the games after
    /// it are read (the second of four games here).
    #[test]
    fn an_overlong_tag_line_skips_its_game_only() {
        let game = |n: usize, extra: &str| {
            format!(
                "[Event \"e\"]\n[White \"A{n}\"]\n{extra}[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n"
            )
        };
        let long = format!("[Annotator \"{}\"]\n", "x".repeat(100_000));
        let pgn = [game(1, ""), game(2, &long), game(3, ""), game(4, "")].concat();
        let out: Vec<(u64, Decoded)> = read_games(pgn.as_bytes())
            .map(|r| r.expect("no error stops the file"))
            .collect();
        let numbers: Vec<u64> = out.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, [1, 2, 3, 4]);
        let Decoded::Invalid(e) = &out[1].1 else {
            panic!("{:?}", out[1].1)
        };
        assert_eq!(e.ply, 0);
        assert!(e.to_string().contains("tag"), "{e}");
        for (i, d) in [0, 2, 3].map(|i| (i, &out[i].1)) {
            let Decoded::Game(g) = d else { panic!("{d:?}") };
            assert_eq!(g.white.name, format!("A{}", i + 1));
            assert_eq!(g.moves.len(), 3);
        }
        let sides: Vec<Sides> = read_sides(pgn.as_bytes()).map(|r| r.expect("io")).collect();
        assert_eq!(sides.len(), 4);
        assert_eq!(sides[1], None);
        assert_eq!(sides[2], Some(("A3".into(), "B".into())));
        // A tag line of some kilobytes (a long event name or URL) is still read.
        let wide = game(5, &format!("[Site \"{}\"]\n", "y".repeat(8_000)));
        assert!(matches!(
            read_games(wide.as_bytes()).next(),
            Some(Ok((1, Decoded::Game(_))))
        ));
    }

    #[test]
    fn sides_name_the_players_of_the_games_that_are_read() {
        let pgn = std::fs::read(path("single-player/biskupstunga_first500.pgn")).expect("read");
        let decoded: Vec<Sides> = read_games(pgn.as_slice())
            .map(|r| match r.expect("io").1 {
                Decoded::Game(g) => Some((g.white.name, g.black.name)),
                _ => None,
            })
            .collect();
        let sides: Vec<Sides> = read_sides(pgn.as_slice()).map(|r| r.expect("io")).collect();
        assert_eq!(sides.len(), decoded.len());
        for (s, d) in sides.iter().zip(&decoded) {
            if d.is_some() {
                assert_eq!(s, d);
            }
        }
        let skipped = b"[Variant \"Chess960\"]\n[White \"a\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n\
            [White \"b\"]\n[Black \"c\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n";
        let sides: Vec<Sides> = read_sides(&skipped[..]).map(|r| r.expect("io")).collect();
        assert_eq!(sides, vec![None, Some(("b".into(), "c".into()))]);
    }

    #[test]
    fn edge_case_files() {
        let read = |name: &str| std::fs::read(path(&format!("edge-cases/{name}"))).expect("read");
        let bom = decode_all(&read("utf8-bom.pgn"));
        // Two empty games with result `*` behind a byte-order mark: both read, both unfinished.
        assert_eq!(bom, vec![Decoded::Skipped(SkipReason::Unfinished); 2]);

        let uci = decode_all(&read("uci-moves.pgn"));
        let [Decoded::Game(g)] = uci.as_slice() else {
            panic!("{uci:?}")
        };
        assert_eq!(g.moves.len(), 113, "every UCI move read");
        assert_eq!(g.result, GameResult::Draw);

        let zh = decode_all(&read("knightvuillaume-jannlee-zh-lichess.pgn"));
        assert!(
            zh.iter()
                .all(|d| matches!(d, Decoded::Skipped(SkipReason::Variant(_))))
        );
        assert!(!zh.is_empty());

        let c960 = decode_all(&read("cutechess-fischerrandom.pgn"));
        assert!(!c960.is_empty());
        assert!(
            c960.iter().all(|d| matches!(d, Decoded::Skipped(_))),
            "{c960:?}"
        );

        let cb = decode_all(&read("chessbase-empty-line.pgn"));
        assert!(cb.iter().any(|d| matches!(d, Decoded::Game(_))), "{cb:?}");

        let kdb = decode_all(&read("kasparov-deep-blue-1997.pgn"));
        let games: Vec<&GameRecord> = kdb
            .iter()
            .filter_map(|d| match d {
                Decoded::Game(g) => Some(g),
                _ => None,
            })
            .collect();
        assert!(!games.is_empty(), "{kdb:?}");
    }

    #[test]
    fn chess_com_game_has_url_id_and_time_class() {
        let pgn = std::fs::read(path("single-player/biskupstunga_first500.pgn")).expect("read");
        let first = read_games(pgn.as_slice())
            .next()
            .expect("one")
            .expect("io")
            .1;
        let Decoded::Game(g) = first else {
            panic!("{first:?}")
        };
        assert_eq!(g.id.0, "https://www.chess.com/game/live/1960894102");
        assert_eq!(g.time_class, TimeClass::Rapid);
        assert_eq!(g.white.rating, Some(929));
        assert_eq!(g.date, Date::from_pgn("2017.02.20"));
        assert_eq!(g.moves.len(), 16);
        // 600 s, no increment: 1. e4 {0:10:00} took nothing, 2. exd5 {0:09:54.6} 5.4 s,
        // 6... Qd7 {0:07:31.8} 90.9 s after 5... a5 {0:09:02.7}.
        let spent = |ply: usize| g.time_of(ply).map(|t| t.spent_ms);
        assert_eq!(
            (spent(0), spent(2), spent(11)),
            (Some(0), Some(5_400), Some(90_900))
        );
        assert_eq!(g.times.len(), 16);
        assert!(g.times.iter().all(|t| t.is_some_and(|t| !t.trouble)));
    }

    /// A real FICS game (tests/fixtures/clock/): `[%emt]` in seconds, 180+0.
    #[test]
    fn elapsed_times_of_a_fics_game() {
        let pgn = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/fixtures/clock/fics-emt.pgn"),
        )
        .expect("read");
        let decoded: Vec<Decoded> = read_games(pgn.as_slice())
            .map(|r| r.expect("io").1)
            .collect();
        let Decoded::Game(g) = &decoded[0] else {
            panic!("{:?}", decoded[0])
        };
        let t = |ply: usize| g.time_of(ply).expect("timed");
        // 5. d4 {[%emt 9.27]}: White's clock 180 - (0 + 1.748 + 0.802 + 0.809) = 176.641
        // before it.
        assert_eq!((t(8).spent_ms, t(8).left_ms), (9_270, Some(167_371)));
        assert_eq!(g.times.len(), 44);
        assert_eq!(decoded[1], Decoded::Skipped(SkipReason::Unfinished));
    }
}
