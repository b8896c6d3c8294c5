//! The JSON bodies of the API's answers (errors are in `error.rs`), apart from the handlers
//! that fill them.

use mirror_core::{GameResult, MoveStats, TimeClass, notation};
use mirror_store::RecentGame;
use serde::Serialize;
use shakmaty::{Chess, Color};

#[derive(Serialize)]
pub(crate) struct Candidate {
    pub(crate) uci: String,
    pub(crate) san: String,
    pub(crate) games: u32,
    pub(crate) wins: u32,
    pub(crate) draws: u32,
    pub(crate) losses: u32,
    pub(crate) probability: f64,
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(crate) enum SourceJson {
    Book {
        /// `tiers`, `habit:W` or `likely:W`.
        policy: String,
        /// The 1-based tier, for the tiers policy only.
        #[serde(skip_serializing_if = "Option::is_none")]
        tier: Option<usize>,
        /// `win > 0.5`, `games played + 1 x model`.
        rule: String,
        games: u32,
        wins: u32,
        draws: u32,
        losses: u32,
        probability: f64,
    },
    Fallback {
        policy: String,
        detail: String,
    },
}

#[derive(Serialize)]
pub(crate) struct MoveResponse {
    pub(crate) user: String,
    pub(crate) fen: String,
    pub(crate) uci: String,
    pub(crate) san: String,
    pub(crate) source: SourceJson,
    pub(crate) explanation: String,
    pub(crate) candidates: Vec<Candidate>,
}

pub(crate) fn candidate(pos: &Chess, m: shakmaty::Move, s: &MoveStats, p: f64) -> Candidate {
    Candidate {
        uci: notation::uci(m),
        san: notation::san(pos, m),
        games: s.games(),
        wins: s.wins,
        draws: s.draws,
        losses: s.losses,
        probability: p,
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExploreMove {
    pub(crate) uci: String,
    pub(crate) san: String,
    pub(crate) white: u32,
    pub(crate) draws: u32,
    pub(crate) black: u32,
    pub(crate) average_opponent_rating: Option<u32>,
    pub(crate) performance: Option<i32>,
    pub(crate) game: Option<()>,
    /// The player's score with the move and its 95% Wilson interval (0 to 1).
    pub(crate) score: ScoreJson,
    /// The opening after the move (the position's own name, else the path's).
    pub(crate) opening: Option<OpeningJson>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ScoreJson {
    pub(crate) value: f64,
    pub(crate) low: f64,
    pub(crate) high: f64,
    /// Fewer than 10 games: the score means little.
    pub(crate) few_games: bool,
}

#[derive(Serialize, Clone)]
pub(crate) struct OpeningJson {
    pub(crate) eco: String,
    pub(crate) name: String,
}

impl From<&mirror_core::openings::Opening> for OpeningJson {
    fn from(o: &mirror_core::openings::Opening) -> OpeningJson {
        OpeningJson {
            eco: o.eco.clone(),
            name: o.name.clone(),
        }
    }
}

#[derive(Serialize)]
pub(crate) struct PlayerJson {
    pub(crate) name: String,
    pub(crate) rating: Option<u16>,
}

#[derive(Serialize)]
pub(crate) struct RecentJson {
    pub(crate) id: String,
    pub(crate) winner: Option<&'static str>,
    pub(crate) speed: &'static str,
    pub(crate) mode: &'static str,
    pub(crate) white: PlayerJson,
    pub(crate) black: PlayerJson,
    pub(crate) year: Option<u16>,
    pub(crate) month: Option<String>,
    pub(crate) uci: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExploreResponse {
    pub(crate) white: u32,
    pub(crate) draws: u32,
    pub(crate) black: u32,
    pub(crate) moves: Vec<ExploreMove>,
    pub(crate) recent_games: Vec<RecentJson>,
    pub(crate) opening: Option<OpeningJson>,
    pub(crate) queue_position: u32,
}

/// Results by colour from the player's statistics (lichess counts white/black wins).
pub(crate) fn by_colour(s: &MoveStats, player: Color) -> (u32, u32, u32) {
    match player {
        Color::White => (s.wins, s.draws, s.losses),
        Color::Black => (s.losses, s.draws, s.wins),
    }
}

pub(crate) fn speed(tc: TimeClass) -> &'static str {
    match tc {
        TimeClass::Bullet => "bullet",
        TimeClass::Blitz => "blitz",
        TimeClass::Rapid => "rapid",
        TimeClass::Classical => "classical",
        TimeClass::Daily => "correspondence",
        TimeClass::Unknown => "unknown",
    }
}

pub(crate) fn recent_json(r: &RecentGame) -> RecentJson {
    let g = &r.game;
    RecentJson {
        id: g.id.0.clone(),
        winner: match g.result {
            GameResult::WhiteWins => Some("white"),
            GameResult::BlackWins => Some("black"),
            GameResult::Draw => None,
        },
        speed: speed(g.time_class),
        mode: if g.rated { "rated" } else { "casual" },
        white: PlayerJson {
            name: g.white.name.clone(),
            rating: g.white.rating,
        },
        black: PlayerJson {
            name: g.black.name.clone(),
            rating: g.black.rating,
        },
        year: g.date.map(|d| d.year),
        month: g.date.and_then(|d| d.month()).map(|m| m.to_string()),
        uci: r.mv.to_string(),
    }
}

#[derive(Serialize)]
pub(crate) struct Health {
    pub(crate) status: &'static str,
    pub(crate) players: usize,
    pub(crate) version: &'static str,
}
