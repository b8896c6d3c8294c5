//! Games of a Chess.com monthly archive: JSON metadata plus the `pgn` field, decoded with
//! mirror-core's PGN decoder.

use mirror_core::{
    GameId, TimeClass,
    pgn::{Decoded, SkipReason, read_games},
    time::Date,
};
use serde::Deserialize;

/// One side of an archived game.
#[derive(Debug, Clone, Deserialize, Default)]
pub struct ApiSide {
    /// Username.
    #[serde(default)]
    pub username: String,
    /// Rating at the time.
    pub rating: Option<u32>,
    /// Result code (`win`, `checkmated`, `agreed`, ...).
    #[serde(default)]
    pub result: String,
}

/// One game of a monthly archive (the fields mirror uses; others are ignored).
#[derive(Debug, Clone, Deserialize, Default)]
pub struct ApiGame {
    /// The game's page URL: its identity.
    #[serde(default)]
    pub url: String,
    /// The game as PGN.
    #[serde(default)]
    pub pgn: String,
    /// `bullet`, `blitz`, `rapid`, `daily`.
    #[serde(default)]
    pub time_class: String,
    /// Rated game.
    #[serde(default)]
    pub rated: Option<bool>,
    /// Unix time of the end of the game.
    pub end_time: Option<i64>,
    /// `chess`, `chess960`, `bughouse`, ...
    #[serde(default)]
    pub rules: String,
    /// Start position FEN; empty or the standard start for normal games.
    #[serde(default)]
    pub initial_setup: String,
    /// The game's uuid.
    #[serde(default)]
    pub uuid: String,
    /// White.
    #[serde(default)]
    pub white: ApiSide,
    /// Black.
    #[serde(default)]
    pub black: ApiSide,
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Decodes an archived game: rules and start position from the JSON (non-standard ones are
/// skipped), moves and result from its PGN, identity, players, ratings, time class, rated
/// and date (end time) from the JSON.
pub fn decode_game(g: &ApiGame) -> Decoded {
    let rules = g.rules.trim();
    if !rules.is_empty() && rules != "chess" {
        return Decoded::Skipped(SkipReason::Variant(rules.to_string()));
    }
    let setup = g.initial_setup.trim();
    if !setup.is_empty() && setup != START {
        return Decoded::Skipped(SkipReason::NonStandardStart);
    }
    let decoded = match read_games(g.pgn.as_bytes()).next() {
        Some(Ok((_, d))) => d,
        Some(Err(e)) => {
            return Decoded::Invalid(mirror_core::pgn::GameError {
                ply: 0,
                move_text: String::new(),
                reason: mirror_core::pgn::GameFault::UnreadableField {
                    detail: e.to_string(),
                },
            });
        }
        None => return Decoded::Skipped(SkipReason::NoMoves),
    };
    let Decoded::Game(mut rec) = decoded else {
        return decoded;
    };
    if !g.url.is_empty() {
        rec.id = GameId(g.url.trim_end_matches('/').to_string());
    } else if !g.uuid.is_empty() {
        rec.id = GameId(format!("chess.com:{}", g.uuid));
    }
    if !g.white.username.is_empty() {
        rec.white.name = g.white.username.clone();
    }
    if !g.black.username.is_empty() {
        rec.black.name = g.black.username.clone();
    }
    rec.white.rating = g
        .white
        .rating
        .and_then(|r| u16::try_from(r).ok())
        .or(rec.white.rating);
    rec.black.rating = g
        .black
        .rating
        .and_then(|r| u16::try_from(r).ok())
        .or(rec.black.rating);
    if let Ok(tc) = g.time_class.parse::<TimeClass>() {
        rec.time_class = tc;
    }
    if let Some(r) = g.rated {
        rec.rated = r;
    }
    if let Some(d) = g.end_time.and_then(Date::from_unix) {
        rec.date = Some(d);
    }
    Decoded::Game(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hikaru_month_decodes_with_json_metadata() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/chesscom/hikaru/hikaru_2014_03.json");
        let text = std::fs::read_to_string(path).expect("read");
        #[derive(Deserialize)]
        struct M {
            games: Vec<ApiGame>,
        }
        let m: M = serde_json::from_str(&text).expect("json");
        assert_eq!(m.games.len(), 162);
        let mut games = 0;
        let mut set_up = 0;
        for g in &m.games {
            let d = decode_game(g);
            if d == Decoded::Skipped(SkipReason::NonStandardStart) {
                set_up += 1;
            }
            if let Decoded::Game(rec) = d {
                games += 1;
                assert!(rec.id.0.starts_with("https://www.chess.com/game/"));
                assert!(rec.color_of(&["hikaru"]).is_some());
                assert_eq!(
                    rec.date.and_then(|d| d.month()).map(|m| m.to_string()),
                    Some("2014-03".into())
                );
            }
        }
        // Two thematic daily games start from a set-up position (`initial_setup`).
        assert_eq!((games, set_up), (160, 2));
        let casual = m.games.iter().filter(|g| g.rated == Some(false)).count();
        assert_eq!(casual, 3);
        let mut variant = m.games[0].clone();
        variant.rules = "chess960".into();
        assert_eq!(
            decode_game(&variant),
            Decoded::Skipped(SkipReason::Variant("chess960".into()))
        );
        let mut setup = m.games[0].clone();
        setup.initial_setup = "8/8/8/8/8/8/8/K1k5 w - - 0 1".into();
        assert_eq!(
            decode_game(&setup),
            Decoded::Skipped(SkipReason::NonStandardStart)
        );
    }
}
