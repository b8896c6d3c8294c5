//! Opening names: the lichess opening-name table (ECO, name, a move sequence; CC0, in
//! `data/openings/`), indexed by the position each line reaches, so that a position gets
//! its name however it was reached. A position that is not in the table takes the name of
//! the last named position on the path that reached it ([`Openings::along`]).

use std::{collections::HashMap, sync::OnceLock};

use shakmaty::Chess;

use crate::{PositionKey, notation};

/// A named opening.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// ECO code, e.g. `B20`.
    pub eco: String,
    /// English name, "Family: Variation, Subvariation".
    pub name: String,
}

/// A row of the table that could not be read.
#[derive(Debug, thiserror::Error)]
#[error("opening table line {line}: {why}")]
pub struct OpeningsError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub why: String,
}

/// Opening names by position.
#[derive(Debug, Default)]
pub struct Openings {
    by_position: HashMap<PositionKey, Opening>,
}

const TABLES: [&str; 5] = [
    include_str!("../data/openings/a.tsv"),
    include_str!("../data/openings/b.tsv"),
    include_str!("../data/openings/c.tsv"),
    include_str!("../data/openings/d.tsv"),
    include_str!("../data/openings/e.tsv"),
];

impl Openings {
    /// The lichess table shipped with mirror (read once, on first use).
    pub fn builtin() -> &'static Openings {
        static BUILTIN: OnceLock<Openings> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            let mut all = Openings::default();
            for table in TABLES {
                all.add_tsv(table)
                    .expect("the shipped opening table is valid (tested)");
            }
            all
        })
    }

    /// Reads a table with a header line and the columns `eco`, `name`, `pgn` (tab
    /// separated). When two rows reach the same position, the first one names it.
    pub fn add_tsv(&mut self, text: &str) -> Result<(), OpeningsError> {
        for (i, row) in text.lines().enumerate().skip(1) {
            if row.trim().is_empty() {
                continue;
            }
            let err = |why: String| OpeningsError { line: i + 1, why };
            let mut cols = row.split('\t');
            let (Some(eco), Some(name), Some(moves), None) =
                (cols.next(), cols.next(), cols.next(), cols.next())
            else {
                return Err(err("expected 3 tab-separated columns".into()));
            };
            let (pos, _) = notation::play_moves(moves).map_err(|e| err(e.to_string()))?;
            self.by_position
                .entry(PositionKey::from_position(&pos))
                .or_insert_with(|| Opening {
                    eco: eco.trim().to_string(),
                    name: name.trim().to_string(),
                });
        }
        Ok(())
    }

    /// Named positions.
    pub fn len(&self) -> usize {
        self.by_position.len()
    }

    /// Whether no position is named.
    pub fn is_empty(&self) -> bool {
        self.by_position.is_empty()
    }

    /// The name of this very position, if the table has it.
    pub fn at(&self, pos: &Chess) -> Option<&Opening> {
        self.by_position.get(&PositionKey::from_position(pos))
    }

    /// The name of the last named position of a path (start position first).
    pub fn along<'a>(&self, path: impl IntoIterator<Item = &'a Chess>) -> Option<&Opening> {
        path.into_iter().filter_map(|p| self.at(p)).last()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(moves: &str) -> Vec<Chess> {
        let (_, played) = notation::play_moves(moves).expect("legal");
        let mut pos = Chess::default();
        let mut out = vec![pos.clone()];
        for m in played {
            shakmaty::Position::play_unchecked(&mut pos, m);
            out.push(pos.clone());
        }
        out
    }

    #[test]
    fn the_whole_table_reads_and_names_by_position() {
        let o = Openings::builtin();
        // 3,807 rows; a few lines reach the same position.
        assert!(o.len() > 3_700, "{}", o.len());
        let sicilian = o.along(&path("e4 c5")).expect("named");
        assert_eq!(
            (sicilian.eco.as_str(), sicilian.name.as_str()),
            ("B20", "Sicilian Defense")
        );
        // A transposition gets one name: 1.Nf3 d5 2.d4 and 1.d4 d5 2.Nf3.
        let a = o.along(&path("Nf3 d5 d4")).expect("named");
        let b = o.along(&path("d4 d5 Nf3")).expect("named");
        assert_eq!(a, b);
        // An unnamed position keeps the last name on its path.
        let deep = path("e4 c5 a3 a6 h3 h6");
        assert!(o.at(deep.last().expect("a position")).is_none());
        assert_eq!(o.along(&deep).map(|x| x.eco.as_str()), Some("B20"));
        assert!(
            o.along(&path("")).is_none(),
            "the start position has no name"
        );
    }

    #[test]
    fn a_bad_row_names_its_line() {
        let mut o = Openings::default();
        let e = o
            .add_tsv("eco\tname\tpgn\nA00\tFine\t1. e4\nB00\tBroken\t1. e5\n")
            .expect_err("illegal");
        assert_eq!(e.line, 3, "{e}");
        let e = o
            .add_tsv("eco\tname\tpgn\nA00 only one column\n")
            .expect_err("columns");
        assert!(e.to_string().contains("line 2: expected 3"), "{e}");
    }
}
