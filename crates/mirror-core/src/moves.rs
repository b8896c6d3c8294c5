//! A compact, position-independent move code (UCI in 16 bits).

use std::fmt;

use shakmaty::{CastlingMode, Chess, Move, Role, Square, uci::UciMove};

/// A move as 16 bits: from square (6 bits), to square (6 bits), promotion role (3 bits).
///
/// Castling is coded the standard-chess UCI way (king from e1 to g1). Decoding needs the
/// position the move is played from ([`MoveCode::to_move`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MoveCode(pub u16);

/// A move that does not fit in a [`MoveCode`] (drops and null moves).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("move {0} cannot be stored (drops and null moves are not standard chess)")]
pub struct UnsupportedMove(pub String);

/// A [`MoveCode`] that is not legal in the position it was applied to.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("stored move {0} is not legal in this position")]
pub struct IllegalMoveCode(pub MoveCode);

impl MoveCode {
    /// Codes a legal move of standard chess.
    pub fn from_move(m: &Move) -> Result<MoveCode, UnsupportedMove> {
        MoveCode::from_uci(&m.to_uci(CastlingMode::Standard))
    }

    /// Codes a UCI move (normal moves only).
    pub fn from_uci(uci: &UciMove) -> Result<MoveCode, UnsupportedMove> {
        match *uci {
            UciMove::Normal {
                from,
                to,
                promotion,
            } => {
                let promo = promotion.map_or(0, |r| r as u16);
                Ok(MoveCode(
                    u16::from(from) | (u16::from(to) << 6) | (promo << 12),
                ))
            }
            _ => Err(UnsupportedMove(uci.to_string())),
        }
    }

    /// The UCI form of this move.
    pub fn to_uci(self) -> UciMove {
        let from = Square::new(u32::from(self.0 & 63));
        let to = Square::new(u32::from((self.0 >> 6) & 63));
        let promotion = Role::try_from((self.0 >> 12) & 7).ok();
        UciMove::Normal {
            from,
            to,
            promotion,
        }
    }

    /// The legal move this code stands for in `pos`.
    pub fn to_move(self, pos: &Chess) -> Result<Move, IllegalMoveCode> {
        self.to_uci()
            .to_move(pos)
            .map_err(|_| IllegalMoveCode(self))
    }
}

impl fmt::Display for MoveCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.to_uci().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Position, fen::Fen};

    #[test]
    fn every_legal_move_round_trips() {
        // A position with castling, promotion with capture, and en passant available.
        let fens = [
            "r3k2r/pPpp1ppp/8/3Pp3/8/8/PPP2PPP/R3K2R w KQkq e6 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/1p4p1/R3K2R b KQkq - 0 1",
        ];
        for fen in fens {
            let pos: Chess = fen
                .parse::<Fen>()
                .expect("fen")
                .into_position(CastlingMode::Standard)
                .expect("position");
            for m in pos.legal_moves() {
                let code = MoveCode::from_move(&m).expect("codes");
                assert_eq!(code.to_move(&pos).expect("decodes"), m, "{fen} {m}");
                assert_eq!(
                    code.to_string(),
                    m.to_uci(CastlingMode::Standard).to_string()
                );
            }
        }
    }

    #[test]
    fn castling_is_king_two_squares() {
        let pos: Chess = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
            .parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("position");
        let codes: Vec<String> = pos
            .legal_moves()
            .iter()
            .filter(|m| m.is_castle())
            .map(|m| MoveCode::from_move(m).expect("codes").to_string())
            .collect();
        assert!(codes.contains(&"e1g1".to_string()));
        assert!(codes.contains(&"e1c1".to_string()));
    }
}
