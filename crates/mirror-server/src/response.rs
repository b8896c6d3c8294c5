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
    /// A basic won ending played from its table.
    Endgame {
        ending: &'static str,
        #[serde(rename = "mateIn")]
        mate_in: u8,
        keeping: usize,
        legal: usize,
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
    /// When the player last played the move here (`YYYY-MM-DD`; `YYYY-MM` or `YYYY` when
    /// the games' records know no more).
    pub(crate) last_played: Option<String>,
}

/// A summed move row of `/api/v1/book`, as the store has it.
#[derive(Serialize, serde::Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct BookRowJson {
    /// The move's code (`MoveCode`).
    pub code: u16,
    /// The key of the position it leads to, 16 hex digits.
    pub child: String,
    /// Games the player won with it.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games the player lost.
    pub losses: u32,
    /// Sum of the known opponents' ratings.
    pub rating_sum: u64,
    /// Games whose opponent's rating is known.
    pub rated_games: u32,
    /// First date played (`YYYYMMDD`, 0 unknown).
    pub first: u32,
    /// Last date played (`YYYYMMDD`, 0 unknown).
    pub last: u32,
}

impl BookRowJson {
    /// The row as JSON.
    pub fn from_row(r: &mirror_store::MoveRow) -> BookRowJson {
        BookRowJson {
            code: r.mv.0,
            child: r.child.to_string(),
            wins: r.stats.wins,
            draws: r.stats.draws,
            losses: r.stats.losses,
            rating_sum: r.stats.rating_sum,
            rated_games: r.stats.rated_games,
            first: r.stats.first,
            last: r.stats.last,
        }
    }

    /// The row back, or why it cannot be one.
    pub fn to_row(&self) -> Result<mirror_store::MoveRow, String> {
        let child = self
            .child
            .parse::<mirror_core::PositionKey>()
            .map_err(|e| format!("child: {e}"))?;
        Ok(mirror_store::MoveRow {
            mv: mirror_core::MoveCode(self.code),
            stats: MoveStats {
                wins: self.wins,
                draws: self.draws,
                losses: self.losses,
                rating_sum: self.rating_sum,
                rated_games: self.rated_games,
                first: self.first,
                last: self.last,
            },
            child,
        })
    }
}

/// `/api/v1/book/newest`.
#[derive(Serialize, serde::Deserialize, Debug)]
pub struct NewestJson {
    /// `YYYY-MM`, or null when the player has no dated game.
    pub month: Option<String>,
}

/// A player of the store.
#[derive(Serialize)]
pub(crate) struct PlayerListed {
    pub(crate) name: String,
    pub(crate) games: u64,
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

/// An opening name, lichess-shaped.
#[derive(Serialize, Clone)]
pub struct OpeningJson {
    /// ECO code.
    pub eco: String,
    /// Name.
    pub name: String,
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

/// A move of a report item, JSON.
#[derive(Serialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ReportMove {
    /// The move in UCI.
    pub uci: String,
    /// The move in SAN.
    pub san: String,
    /// Games with it.
    pub games: u32,
    /// The player's wins, draws, losses.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// Share of the position's games.
    pub share: f64,
    /// The player's score and its 95% interval.
    pub score: f64,
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

/// A position of a report item, JSON.
#[derive(Serialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ReportPlace {
    /// UCI moves from the start (usable as `explore --moves` and `moves=`).
    pub moves: Vec<String>,
    /// The position.
    pub fen: String,
    /// The player's colour there.
    pub color: &'static str,
    /// Its opening name, if any.
    pub opening: Option<OpeningJson>,
    /// Games through it.
    pub games: u32,
    /// The player's score there and its interval.
    pub score: f64,
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

/// A costly position, JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportCostly {
    /// Where.
    #[serde(flatten)]
    pub place: ReportPlace,
    /// The player's average with that colour.
    pub average: f64,
    /// Average minus score.
    pub deficit: f64,
    /// Games x deficit.
    pub cost: f64,
    /// The player's moves there, most played first.
    pub played: Vec<ReportMove>,
}

/// A deviation, JSON.
#[derive(Serialize)]
pub struct ReportDeviation {
    /// Where.
    #[serde(flatten)]
    pub place: ReportPlace,
    /// The player's choices.
    pub choices: Vec<ReportMove>,
}

/// A surprise, JSON.
#[derive(Serialize)]
pub struct ReportSurprise {
    /// Where (the opponent to move).
    #[serde(flatten)]
    pub place: ReportPlace,
    /// The rare reply and how those games went.
    pub reply: ReportMove,
}

/// A quarter of a drift, JSON.
#[derive(Serialize)]
pub struct ReportQuarter {
    /// `YYYY-Qn`.
    pub quarter: String,
    /// Games that quarter.
    pub games: u32,
    /// Each move's share (UCI, share), most played first.
    pub shares: Vec<(String, f64)>,
}

/// A drift, JSON.
#[derive(Serialize)]
pub struct ReportDrift {
    /// Where.
    #[serde(flatten)]
    pub place: ReportPlace,
    /// By quarter, oldest first.
    pub quarters: Vec<ReportQuarter>,
}

/// The "where to study" report, JSON (the CLI's `--json` and `/api/v1/report`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportJson {
    /// The player.
    pub user: String,
    /// Their average score as White, as Black.
    pub average_white: Option<f64>,
    /// As Black.
    pub average_black: Option<f64>,
    /// Costly positions.
    pub costly: Vec<ReportCostly>,
    /// Deviations.
    pub deviations: Vec<ReportDeviation>,
    /// Surprises.
    pub surprises: Vec<ReportSurprise>,
    /// Repertoire drift.
    pub drift: Vec<ReportDrift>,
}

impl ReportJson {
    /// The JSON form of a report.
    pub fn new(user: &str, r: &mirror_store::report::Report) -> ReportJson {
        use mirror_store::report::{MoveScore, Place};
        let place = |p: &Place| -> (ReportPlace, Chess) {
            let along = mirror_store::report::positions_along(&p.path)
                .expect("a report path replays: it was built from the stored edges");
            let opening = mirror_core::openings::Openings::builtin()
                .along(&along)
                .map(OpeningJson::from);
            let pos = along.last().expect("the start is always there").clone();
            (
                ReportPlace {
                    moves: p.path.iter().map(ToString::to_string).collect(),
                    fen: notation::fen(&pos),
                    color: mirror_core::codec::color_name(p.color),
                    opening,
                    games: p.games,
                    score: p.score.score,
                    low: p.score.low,
                    high: p.score.high,
                },
                pos,
            )
        };
        let mv = |pos: &Chess, m: &MoveScore| -> ReportMove {
            let legal =
                m.mv.to_move(pos)
                    .expect("a report move is legal where the report found it");
            ReportMove {
                uci: notation::uci(legal),
                san: notation::san(pos, legal),
                games: m.stats.games(),
                wins: m.stats.wins,
                draws: m.stats.draws,
                losses: m.stats.losses,
                share: m.share,
                score: m.score.score,
                low: m.score.low,
                high: m.score.high,
            }
        };
        ReportJson {
            user: user.to_string(),
            average_white: r.average[0],
            average_black: r.average[1],
            costly: r
                .costly
                .iter()
                .map(|c| {
                    let (p, pos) = place(&c.place);
                    ReportCostly {
                        place: p,
                        average: c.average,
                        deficit: c.deficit,
                        cost: c.cost,
                        played: c.moves.iter().map(|m| mv(&pos, m)).collect(),
                    }
                })
                .collect(),
            deviations: r
                .deviations
                .iter()
                .map(|d| {
                    let (p, pos) = place(&d.place);
                    ReportDeviation {
                        place: p,
                        choices: d.choices.iter().map(|m| mv(&pos, m)).collect(),
                    }
                })
                .collect(),
            surprises: r
                .surprises
                .iter()
                .map(|s| {
                    let (p, pos) = place(&s.place);
                    ReportSurprise {
                        place: p,
                        reply: mv(&pos, &s.reply),
                    }
                })
                .collect(),
            drift: r
                .drift
                .iter()
                .map(|d| {
                    let (p, pos) = place(&d.place);
                    ReportDrift {
                        place: p,
                        quarters: d
                            .quarters
                            .iter()
                            .map(|q| ReportQuarter {
                                quarter: q.quarter.clone(),
                                games: q.games,
                                shares: q
                                    .shares
                                    .iter()
                                    .map(|(m, s)| {
                                        let legal =
                                            m.to_move(&pos).expect("a report move is legal");
                                        (notation::uci(legal), *s)
                                    })
                                    .collect(),
                            })
                            .collect(),
                    }
                })
                .collect(),
        }
    }
}
