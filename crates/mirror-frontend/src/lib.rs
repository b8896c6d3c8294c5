//! Front ends of the engine: the terminal game ([`terminal`], drawing with [`board`]), the
//! UCI loop ([`uci`]) and `mirror values`' report ([`values`]) and chart ([`plot`]). They read and print; the
//! choices are the engine's ([`mirror_engine`]).

pub mod board;
pub mod plot;
pub mod terminal;
pub mod uci;
pub mod values;
