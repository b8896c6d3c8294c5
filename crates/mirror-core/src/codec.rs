//! The byte and text forms of small values that the stores write, in one place: a
//! colour as one bit (0 = white, 1 = black) and as a word (`white`, `black`).

use shakmaty::Color;

/// A colour as a bit: 0 = white, 1 = black.
pub fn color_bit(color: Color) -> u8 {
    u8::from(color == Color::Black)
}

/// The colour of a bit written by [`color_bit`]; `None` for any other byte.
pub fn color_from_bit(bit: u8) -> Option<Color> {
    match bit {
        0 => Some(Color::White),
        1 => Some(Color::Black),
        _ => None,
    }
}

/// A colour as a word: `white` or `black`.
pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The colour of a word written by [`color_name`]; `None` for any other text.
pub fn color_from_name(name: &str) -> Option<Color> {
    match name {
        "white" => Some(Color::White),
        "black" => Some(Color::Black),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_round_trip_and_nothing_else_decodes() {
        for c in [Color::White, Color::Black] {
            assert_eq!(color_from_bit(color_bit(c)), Some(c));
            assert_eq!(color_from_name(color_name(c)), Some(c));
        }
        assert_eq!(color_from_bit(2), None);
        assert_eq!(color_from_name("White"), None);
    }
}
