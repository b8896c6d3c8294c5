//! Splitting a player's games by date: the oldest share trains, the next validates, the
//! newest tests. Games are cut by index in date order, so a game is in exactly one set.

use std::{fmt, ops::Range, str::FromStr};

/// Percentages of the games in training, validation and test, oldest first.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Fractions {
    /// Training share (percent).
    pub train: u32,
    /// Validation share (percent).
    pub val: u32,
    /// Test share (percent).
    pub test: u32,
}

impl Default for Fractions {
    /// 80/10/10.
    fn default() -> Self {
        Fractions {
            train: 80,
            val: 10,
            test: 10,
        }
    }
}

/// A split that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid split {0:?}: expected three whole percentages TRAIN,VALIDATION,TEST summing to 100 \
     with training and test above 0, e.g. 80,10,10"
)]
pub struct ParseFractionsError(pub String);

impl FromStr for Fractions {
    type Err = ParseFractionsError;

    fn from_str(s: &str) -> Result<Fractions, ParseFractionsError> {
        let err = || ParseFractionsError(s.to_string());
        let parts: Vec<u32> = s
            .split([',', '/'])
            .map(|p| p.trim().parse::<u32>().map_err(|_| err()))
            .collect::<Result<_, _>>()?;
        let [train, val, test] = parts[..] else {
            return Err(err());
        };
        if train + val + test != 100 || train == 0 || test == 0 {
            return Err(err());
        }
        Ok(Fractions { train, val, test })
    }
}

impl fmt::Display for Fractions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{},{}", self.train, self.val, self.test)
    }
}

/// Index ranges of the three sets over `n` games in date order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// The oldest games.
    pub train: Range<usize>,
    /// The next ones.
    pub val: Range<usize>,
    /// The newest.
    pub test: Range<usize>,
}

impl Fractions {
    /// Cuts `n` games (oldest first): consecutive, disjoint ranges covering `0..n`.
    pub fn split(&self, n: usize) -> Split {
        let a = n * self.train as usize / 100;
        let b = n * (self.train + self.val) as usize / 100;
        Split {
            train: 0..a,
            val: a..b,
            test: b..n,
        }
    }
}

/// The date of a game, `?` when unknown or when there is no game (for reports of a split).
pub fn date_text(g: Option<&(crate::GameRecord, shakmaty::Color)>) -> String {
    g.and_then(|(g, _)| g.date)
        .map_or_else(|| "?".into(), |d| d.to_string())
}

/// The dates of the first and last of `games` (in date order), as [`date_text`] writes
/// them: how a split's report and a model's metadata name a part's span.
pub fn date_range(games: &[(crate::GameRecord, shakmaty::Color)]) -> (String, String) {
    (date_text(games.first()), date_text(games.last()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_cuts_every_game_once() {
        let f: Fractions = "70/15/15".parse().expect("valid");
        assert_eq!(f.to_string(), "70,15,15");
        for n in [0, 1, 7, 10, 101, 27_103] {
            let s = f.split(n);
            assert_eq!(s.train.start, 0);
            assert_eq!(s.train.end, s.val.start);
            assert_eq!(s.val.end, s.test.start);
            assert_eq!(s.test.end, n);
        }
        let s = Fractions::default().split(27_103);
        assert_eq!(
            (s.train.len(), s.val.len(), s.test.len()),
            (21_682, 2_710, 2_711)
        );
        for bad in [
            "80,10",
            "80,10,11",
            "0,50,50",
            "90,10,0",
            "a,b,c",
            "80,10,10,0",
        ] {
            assert!(bad.parse::<Fractions>().is_err(), "{bad}");
        }
    }
}
