//! Chess notation, in one place: reading moves and positions typed by people (SAN or UCI,
//! FEN) and writing them (SAN, UCI with standard castling, FEN with en passant only when
//! legal). Every crate that shows or reads a move uses these.

use shakmaty::{
    CastlingMode, Chess, EnPassantMode, Move, Position,
    fen::Fen,
    san::{San, SanError, SanPlus},
    uci::UciMove,
};

/// Why a typed move was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveInputError {
    /// Readable, but not legal here.
    #[error("{0:?} is not a legal move here")]
    Illegal(String),
    /// SAN that fits more than one legal move.
    #[error("{0:?} is ambiguous here: add the file or rank of the piece (e.g. Nbd2)")]
    Ambiguous(String),
    /// Neither SAN nor UCI.
    #[error("{0:?} is neither SAN (e.g. Nf3) nor UCI (e.g. g1f3)")]
    Unreadable(String),
}

/// Reads one move written in SAN or UCI in `pos`.
pub fn parse_move(pos: &Chess, token: &str) -> Result<Move, MoveInputError> {
    let token = token.trim();
    let san = token.parse::<SanPlus>().ok().map(|s| s.san);
    if let Some(san) = san {
        match san.to_move(pos) {
            Ok(m) => return Ok(m),
            Err(SanError::AmbiguousSan) => return Err(MoveInputError::Ambiguous(token.into())),
            Err(SanError::IllegalSan) => {}
        }
    }
    if let Ok(uci) = token.parse::<UciMove>() {
        return uci
            .to_move(pos)
            .map_err(|_| MoveInputError::Illegal(token.into()));
    }
    if san.is_some() {
        return Err(MoveInputError::Illegal(token.into()));
    }
    Err(MoveInputError::Unreadable(token.into()))
}

/// A move list that could not be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("move {number} of the list: {error} in position {fen}")]
pub struct MoveListError {
    /// 1-based index of the bad move.
    pub number: usize,
    /// What was wrong with it.
    pub error: MoveInputError,
    /// The position it was tried in.
    pub fen: String,
}

/// The positions along a move list typed by a person ([`play_moves`]), from the start
/// position to the last one.
pub fn path_of_moves(text: &str) -> Result<Vec<Chess>, MoveListError> {
    let (_, played) = play_moves(text)?;
    let mut pos = Chess::default();
    let mut path = vec![pos.clone()];
    for m in played {
        pos.play_unchecked(m);
        path.push(pos.clone());
    }
    Ok(path)
}

/// Plays a move list from the start position: SAN or UCI, with optional move numbers
/// (`1.`, `1...`, `12.e4`) and commas.
pub fn play_moves(text: &str) -> Result<(Chess, Vec<Move>), MoveListError> {
    let mut pos = Chess::default();
    let mut played = Vec::new();
    for raw in text.split(|c: char| c.is_whitespace() || c == ',') {
        let token = raw.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if token.is_empty() {
            continue;
        }
        match parse_move(&pos, token) {
            Ok(m) => {
                pos.play_unchecked(m);
                played.push(m);
            }
            Err(error) => {
                return Err(MoveListError {
                    number: played.len() + 1,
                    error,
                    fen: fen(&pos),
                });
            }
        }
    }
    Ok((pos, played))
}

/// A FEN that does not give a legal standard chess position.
#[derive(Debug, thiserror::Error)]
pub enum FenError {
    /// Not FEN at all.
    #[error("invalid FEN {text:?}: {source}")]
    Syntax {
        /// The text given.
        text: String,
        /// What the parser said.
        #[source]
        source: shakmaty::fen::ParseFenError,
    },
    /// FEN, but not a legal position (e.g. the side not to move is in check).
    #[error("FEN {text:?} is not a legal chess position: {source}")]
    Illegal {
        /// The text given.
        text: String,
        /// Why the position is not legal.
        #[source]
        source: Box<shakmaty::PositionError<Chess>>,
    },
}

/// Parses a FEN into a legal standard chess position.
pub fn parse_fen(text: &str) -> Result<Chess, FenError> {
    let fen: Fen = text.trim().parse().map_err(|source| FenError::Syntax {
        text: text.to_string(),
        source,
    })?;
    fen.into_position(CastlingMode::Standard)
        .map_err(|source| FenError::Illegal {
            text: text.to_string(),
            source: Box::new(source),
        })
}

/// SAN of a legal move.
pub fn san(pos: &Chess, m: Move) -> String {
    San::from_move(pos, m).to_string()
}

/// SAN with check/mate suffix.
pub fn san_plus(pos: &Chess, m: Move) -> String {
    SanPlus::from_move(pos.clone(), m).to_string()
}

/// UCI text of a move (standard castling, e1g1).
pub fn uci(m: Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// FEN of a position (en passant only when legal).
pub fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// A count as people write it: `4942` as `4,942`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_written_in_thousands() {
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(959_881), "959,881");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }

    fn after(moves: &[&str]) -> Chess {
        let mut pos = Chess::default();
        for m in moves {
            let mv = parse_move(&pos, m).expect("legal");
            pos.play_unchecked(mv);
        }
        pos
    }

    #[test]
    fn san_and_uci() {
        assert_eq!(
            after(&["e4", "e5", "Nf3"]),
            after(&["e2e4", "e7e5", "g1f3"])
        );
        let pos = after(&["e4", "e5", "Nf3", "Nc6", "Bc4", "Nf6"]);
        assert_eq!(uci(parse_move(&pos, "O-O").expect("castle")), "e1g1");
        assert_eq!(uci(parse_move(&pos, "e1g1").expect("castle")), "e1g1");
    }

    #[test]
    fn move_lists() {
        let (a, _) = play_moves("1. e4 c5 2.Nf3").expect("san");
        let (b, moves) = play_moves("e2e4, c7c5, g1f3").expect("uci");
        assert_eq!((a, moves.len()), (b, 3));
        let err = play_moves("e4 e5 Ke3").expect_err("illegal");
        assert_eq!(err.number, 3);
        assert!(
            err.to_string().contains("\"Ke3\" is not a legal move"),
            "{err}"
        );
    }

    #[test]
    fn errors() {
        let pos = Chess::default();
        assert_eq!(
            parse_move(&pos, "Ke2"),
            Err(MoveInputError::Illegal("Ke2".into()))
        );
        assert_eq!(
            parse_move(&pos, "e2e5"),
            Err(MoveInputError::Illegal("e2e5".into()))
        );
        assert_eq!(
            parse_move(&pos, "hello"),
            Err(MoveInputError::Unreadable("hello".into()))
        );
        // Knights on b1 and f3 can both reach d2 once d2 is empty.
        let pos = after(&["d4", "d5", "Nf3", "Nf6", "Bf4", "Bf5"]);
        let pos = {
            let mut p = pos;
            p.play_unchecked(parse_move(&p, "Bd2").expect("Bd2"));
            p.play_unchecked(parse_move(&p, "e6").expect("e6"));
            p.play_unchecked(parse_move(&p, "Be3").expect("Be3"));
            p.play_unchecked(parse_move(&p, "Bd6").expect("Bd6"));
            p
        };
        assert_eq!(
            parse_move(&pos, "Nd2"),
            Err(MoveInputError::Ambiguous("Nd2".into()))
        );
        assert!(parse_move(&pos, "Nbd2").is_ok());
    }
}
