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
