//! Positions from user input: a FEN, or a move list in SAN or UCI from the start.

use anyhow::{Context, bail};
use shakmaty::{
    CastlingMode, Chess, EnPassantMode, Move, Position,
    fen::Fen,
    san::{San, SanPlus},
    uci::UciMove,
};

/// Parses a FEN (a full FEN or EPD-like FEN without counters).
pub fn from_fen(text: &str) -> anyhow::Result<Chess> {
    let fen: Fen = text
        .trim()
        .parse()
        .with_context(|| format!("invalid FEN {text:?}"))?;
    fen.into_position(CastlingMode::Standard)
        .map_err(|e| anyhow::anyhow!("FEN {text:?} is not a legal chess position: {e}"))
}

/// Reads one move written in SAN or UCI in `pos`.
pub fn parse_move(pos: &Chess, token: &str) -> Result<Move, String> {
    if let Ok(san) = token.parse::<SanPlus>()
        && let Ok(m) = san.san.to_move(pos)
    {
        return Ok(m);
    }
    if let Ok(uci) = token.parse::<UciMove>()
        && let Ok(m) = uci.to_move(pos)
    {
        return Ok(m);
    }
    let why = match token.parse::<San>() {
        Ok(san) => match san.to_move(pos) {
            Err(e) => e.to_string(),
            Ok(_) => "not legal".to_string(),
        },
        Err(_) if token.parse::<UciMove>().is_ok() => "illegal uci".to_string(),
        Err(_) => "neither SAN nor UCI".to_string(),
    };
    Err(why)
}

/// Plays a move list from the start position. Move numbers (`1.`, `1...`, `12.e4`) and
/// commas are allowed. An illegal or unreadable move is an error naming it and its ply.
pub fn from_moves(text: &str) -> anyhow::Result<(Chess, Vec<Move>)> {
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
            Err(why) => bail!(
                "move {} ({token:?}) in --moves is {why} in position {}",
                played.len() + 1,
                Fen::from_position(&pos, EnPassantMode::Legal)
            ),
        }
    }
    Ok((pos, played))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn san_uci_and_move_numbers() {
        let (a, _) = from_moves("1. e4 c5 2.Nf3").expect("san");
        let (b, _) = from_moves("e2e4, c7c5, g1f3").expect("uci");
        assert_eq!(a, b);
        let (c, moves) = from_moves("").expect("empty");
        assert_eq!((c, moves.len()), (Chess::default(), 0));
    }

    #[test]
    fn errors_name_the_move() {
        let err = from_moves("e4 e5 Ke3").expect_err("illegal").to_string();
        assert!(err.contains("move 3") && err.contains("Ke3"), "{err}");
        let err = from_moves("e4 xyz").expect_err("unreadable").to_string();
        assert!(
            err.contains("\"xyz\"") && err.contains("neither SAN nor UCI"),
            "{err}"
        );
        let err = from_fen("not a fen").expect_err("bad").to_string();
        assert!(err.contains("not a fen"), "{err}");
        let err = from_fen("8/8/8/8/8/8/8/8 w - - 0 1")
            .expect_err("no kings")
            .to_string();
        assert!(err.contains("not a legal"), "{err}");
    }
}
