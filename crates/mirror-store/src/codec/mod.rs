//! The embedded store's byte forms, one module per stored type, each with its round trip
//! tested: [`edge`] (the 17-byte edge key and its 40-byte value), [`mark`] (a player's
//! "ingested" mark of a game: date and colour) and [`fetch`] (what an incremental source
//! remembers). Game records and packed positions have their codecs in `mirror-core`.

pub mod edge;
pub mod fetch;
pub mod mark;
