//! The embedded store's byte forms, one module per stored type, each with its round trip
//! tested: [`edge`] (the 19-byte edge key and its 40-byte value), [`total`] (a move's total
//! over every dimension but colour), [`positions`] (the positions a game went through),
//! [`mark`] (a player's "ingested" mark of a game: date and colour), [`fetch`] (what an
//! incremental source remembers) and [`drill`] (a player's drill record). Game records and packed positions have their codecs in `mirror-core`.

pub mod drill;
pub mod edge;
pub mod fetch;
pub mod mark;
pub mod positions;
pub mod total;
