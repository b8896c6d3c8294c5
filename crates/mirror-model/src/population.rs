//! The population a base model learns from: a seeded uniform sample of many players'
//! games (reservoir sampling over PGN inputs), the players to leave out excluded by name,
//! and the names left in that look like theirs reported (another spelling of the same
//! player, perhaps).

use std::io::Read;

use mirror_core::{
    GameRecord,
    pgn::{Decoded, read_games},
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::Color;

/// An input that could not be read to its end.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {name}")]
pub struct ReadError {
    /// The input.
    pub name: String,
    /// The system's error.
    #[source]
    pub source: std::io::Error,
}

/// The family name a player's name starts or ends with, lowercased: "Karpov, Anatoly",
/// "Karpov,An" and "Anatoly Karpov" all give "karpov"; a one-word name (an online
/// account) is its own.
pub fn family_name(name: &str) -> String {
    let name = name.trim();
    let family = match name.split_once(',') {
        Some((family, _)) => family,
        None => name
            .rsplit_once(char::is_whitespace)
            .map_or(name, |(_, last)| last),
    };
    family.trim().to_lowercase()
}

/// What [`sample_games`] drew from and left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drawn {
    /// Games the sample was drawn from.
    pub seen: u64,
    /// Games left out as shorter than the minimum.
    pub short: u64,
    /// Games left out as not standard or not readable.
    pub bad: u64,
    /// Games left out as played by an excluded player.
    pub excluded: u64,
    /// Names of players in the games drawn from that share an excluded name's family
    /// name (another spelling of the same player, perhaps), with their games, most first.
    pub lookalikes: Vec<(String, u64)>,
}

impl Drawn {
    /// What the sample is, in words: the games drawn from and left out (`min_plies`, the
    /// `exclude`d names), the `sampled` games, and the names that look like an excluded
    /// player's.
    pub fn describe(&self, sampled: usize, min_plies: usize, exclude: &[String]) -> String {
        let quoted = |names: &mut dyn Iterator<Item = String>| names.collect::<Vec<_>>().join(", ");
        let excluded = if exclude.is_empty() {
            String::new()
        } else {
            let names = quoted(&mut exclude.iter().map(|n| format!("{n:?}")));
            format!(", {} played by {names} left out", self.excluded)
        };
        let mut text = format!(
            "{} games to sample from ({} shorter than {min_plies} half-moves and {} not standard or not readable left out{excluded}); learning from {sampled} of them, both sides",
            self.seen, self.short, self.bad,
        );
        if !self.lookalikes.is_empty() {
            // The PGN spells a player many ways; name the ones --exclude did not catch.
            const SHOWN: usize = 8;
            let shown = quoted(
                &mut self
                    .lookalikes
                    .iter()
                    .take(SHOWN)
                    .map(|(name, n)| format!("{name:?} ({n} games)")),
            );
            let more = self.lookalikes.len().saturating_sub(SHOWN);
            let more = if more > 0 {
                format!(" and {more} more names")
            } else {
                String::new()
            };
            text.push_str(&format!(
                "\nstill in, with the family name of an excluded player: {shown}{more} (--exclude each that is the same player)"
            ));
        }
        text
    }
}

/// `games` sorted oldest first (so that a split is by date, as for a player), each
/// twice: once for each side.
pub fn both_sides(mut games: Vec<GameRecord>) -> Vec<(GameRecord, Color)> {
    games.sort_by_key(|g| g.date);
    games
        .into_iter()
        .flat_map(|g| [(g.clone(), Color::White), (g, Color::Black)])
        .collect()
}

/// A seeded uniform sample of `k` games of the `inputs` (each a name and its text, read
/// in order), with how many games it was drawn from, how many were left out as shorter
/// than `min_plies`, not readable, or played by one of the `exclude`d players, and which
/// names left in look like theirs. `read` is told of each game read.
pub fn sample_games<R: Read>(
    inputs: impl IntoIterator<Item = (String, R)>,
    k: usize,
    min_plies: usize,
    exclude: &[String],
    seed: u64,
    read: &mut dyn FnMut(),
) -> Result<(Vec<GameRecord>, Drawn), ReadError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Reserve what a large sample needs, not whatever `k` asks for.
    let mut kept: Vec<GameRecord> = Vec::with_capacity(k.min(1 << 20));
    let (mut seen, mut short, mut bad, mut excluded) = (0u64, 0u64, 0u64, 0u64);
    let excluded_player = |g: &GameRecord| {
        [&g.white, &g.black]
            .iter()
            .any(|side| exclude.iter().any(|n| side.name.eq_ignore_ascii_case(n)))
    };
    let families: Vec<String> = exclude.iter().map(|n| family_name(n)).collect();
    let mut lookalikes: std::collections::HashMap<String, u64> = Default::default();
    for (name, input) in inputs {
        for item in read_games(input) {
            let (_, decoded) = item.map_err(|source| ReadError {
                name: name.clone(),
                source,
            })?;
            read();
            let game = match decoded {
                Decoded::Game(g) if excluded_player(&g) => {
                    excluded += 1;
                    continue;
                }
                Decoded::Game(g) if g.moves.len() >= min_plies => g,
                Decoded::Game(_) => {
                    short += 1;
                    continue;
                }
                Decoded::Skipped(_) | Decoded::Invalid(_) => {
                    bad += 1;
                    continue;
                }
            };
            seen += 1;
            if !families.is_empty() {
                for side in [&game.white, &game.black] {
                    if families.contains(&family_name(&side.name)) {
                        *lookalikes.entry(side.name.clone()).or_default() += 1;
                    }
                }
            }
            if kept.len() < k {
                kept.push(game);
            } else {
                let j = rng.random_range(0..seen);
                if let Some(slot) = usize::try_from(j).ok().and_then(|j| kept.get_mut(j)) {
                    *slot = game;
                }
            }
        }
    }
    let mut lookalikes: Vec<(String, u64)> = lookalikes.into_iter().collect();
    lookalikes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok((
        kept,
        Drawn {
            seen,
            short,
            bad,
            excluded,
            lookalikes,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::family_name;

    #[test]
    fn a_family_name_in_every_spelling_of_the_masters_files() {
        for name in [
            "Karpov, Anatoly",
            "Karpov,An",
            "Karpov,Ana",
            " karpov , A.",
            "Anatoly Karpov",
        ] {
            assert_eq!(family_name(name), "karpov", "{name:?}");
        }
        assert_eq!(family_name("jishanshaikh4"), "jishanshaikh4");
        assert_eq!(family_name("Kasparov, Gary"), "kasparov");
        assert_ne!(
            family_name("Kasparov, Gary"),
            family_name("Karpov, Anatoly")
        );
    }
}
