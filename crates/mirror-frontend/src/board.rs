//! Drawing a board in the terminal with Unicode pieces.

use shakmaty::{Chess, Color, File, Move, Position, Rank, Role, Square};

fn glyph(color: Color, role: Role) -> char {
    match (color, role) {
        (Color::White, Role::King) => '♔',
        (Color::White, Role::Queen) => '♕',
        (Color::White, Role::Rook) => '♖',
        (Color::White, Role::Bishop) => '♗',
        (Color::White, Role::Knight) => '♘',
        (Color::White, Role::Pawn) => '♙',
        (Color::Black, Role::King) => '♚',
        (Color::Black, Role::Queen) => '♛',
        (Color::Black, Role::Rook) => '♜',
        (Color::Black, Role::Bishop) => '♝',
        (Color::Black, Role::Knight) => '♞',
        (Color::Black, Role::Pawn) => '♟',
    }
}

/// The board seen from `side` (its pieces at the bottom), with coordinates; the squares of
/// `last` (from and to) are bracketed, e.g. `[♞]`.
pub fn render(pos: &Chess, side: Color, last: Option<&Move>) -> String {
    let marked: Vec<Square> = last
        .map(|m| {
            let mut v = vec![m.to()];
            v.extend(m.from());
            // Castling moves the king: mark where it landed (shakmaty's `to` is the rook).
            if let Move::Castle { king, rook } = m {
                let file = if rook.file() > king.file() {
                    File::G
                } else {
                    File::C
                };
                v.push(Square::from_coords(file, king.rank()));
            }
            v
        })
        .unwrap_or_default();
    let files: Vec<File> = match side {
        Color::White => File::ALL.to_vec(),
        Color::Black => File::ALL.iter().rev().copied().collect(),
    };
    let ranks: Vec<Rank> = match side {
        Color::White => Rank::ALL.iter().rev().copied().collect(),
        Color::Black => Rank::ALL.to_vec(),
    };
    let header: String = files.iter().map(|f| format!(" {} ", f.char())).collect();
    let mut out = format!("   {header}\n");
    for rank in &ranks {
        out.push_str(&format!(" {} ", rank.char()));
        for file in &files {
            let sq = Square::from_coords(*file, *rank);
            let c = pos
                .board()
                .piece_at(sq)
                .map_or('·', |p| glyph(p.color, p.role));
            if marked.contains(&sq) {
                out.push_str(&format!("[{c}]"));
            } else {
                out.push_str(&format!(" {c} "));
            }
        }
        out.push_str(&format!(" {}\n", rank.char()));
    }
    out.push_str(&format!("   {header}\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_core::notation::parse_move;

    #[test]
    fn start_position_both_sides_and_last_move() {
        let pos = Chess::default();
        let white = render(&pos, Color::White, None);
        let lines: Vec<&str> = white.lines().collect();
        assert_eq!(lines[0].split_whitespace().collect::<String>(), "abcdefgh");
        assert_eq!(lines[1], " 8  ♜  ♞  ♝  ♛  ♚  ♝  ♞  ♜  8");
        assert_eq!(lines[8], " 1  ♖  ♘  ♗  ♕  ♔  ♗  ♘  ♖  1");
        let black = render(&pos, Color::Black, None);
        let lines: Vec<&str> = black.lines().collect();
        assert_eq!(lines[0].split_whitespace().collect::<String>(), "hgfedcba");
        assert_eq!(lines[1], " 1  ♖  ♘  ♗  ♔  ♕  ♗  ♘  ♖  1");

        let m = parse_move(&pos, "e4").expect("e4");
        let mut after = pos.clone();
        after.play_unchecked(m);
        let drawn = render(&after, Color::White, Some(&m));
        let rank4 = drawn.lines().nth(5).expect("rank 4");
        assert_eq!(rank4, " 4  ·  ·  ·  · [♙] ·  ·  ·  4");
        let rank2 = drawn.lines().nth(7).expect("rank 2");
        assert!(rank2.contains("[·]"), "{rank2}");
    }
}
