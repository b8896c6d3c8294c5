//! The JSON bodies of the API's answers (errors are in `error.rs`), apart from the handlers
//! that fill them.

use mirror_core::{
    GameResult, MoveStats, PositionKey, TimeClass,
    codec::color_name,
    evaluation::{Evaluation, Judgement, move_loss},
    notation,
    openings::{Opening, Openings},
    stats::FEW_GAMES,
    time::Date,
};
use mirror_store::{MoveRow, RecentGame};
use serde::Serialize;
use shakmaty::{Chess, Color, Position};

pub mod burn;
mod drill;
mod explore;
mod players;
mod report;

pub use drill::DrillAnswerJson;
pub use explore::{ExploreEvals, ExploreRowJson, ExploreTable, MoveTruth};
pub use players::{AccountJson, PlayerList, PlayerRowJson};
pub use report::{
    BestMoveJson, ReportAnalysed, ReportBookExit, ReportBookLine, ReportCostly, ReportDeviation,
    ReportDrift, ReportEngineLoss, ReportJson, ReportMove, ReportPlace, ReportQuarter,
    ReportSurprise, ReportUnpunished,
};
pub(crate) use report::{place_line, report_place};

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
    /// Where the move came from, in a chess player's words.
    pub(crate) words: String,
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
    /// The time the move took, where the games' clocks say (null: no game says).
    pub(crate) time: Option<TimeJson>,
    /// mirror's own, beside lichess's fields: the evaluation after the move, the win%
    /// points it loses against the best move, and lichess's mark for that.
    pub(crate) eval: Option<EvalJson>,
    pub(crate) win_loss: Option<f64>,
    pub(crate) judgement: Option<&'static str>,
}

/// The time a move took in the games whose clocks say (see `mirror_core::clock`).
#[derive(Debug, Serialize, Clone, Copy, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TimeJson {
    /// Games in which the move's time is known.
    pub timed: u32,
    /// Their average time, in seconds (one decimal).
    pub average_seconds: f64,
    /// How many of them were made in time trouble (under 10% of the base time, or 10 s,
    /// left).
    pub trouble: u32,
}

impl TimeJson {
    /// The time of a move's statistics; `None` when no game has it.
    pub fn of(s: &MoveStats) -> Option<TimeJson> {
        Some(TimeJson {
            timed: s.timed,
            average_seconds: (s.average_seconds()? * 10.0).round() / 10.0,
            trouble: s.trouble,
        })
    }
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
    /// Games in which the move's time is known.
    pub timed: u32,
    /// Milliseconds those moves took in all.
    pub time_ms: u64,
    /// How many of them were made in time trouble.
    pub trouble: u32,
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
            timed: r.stats.timed,
            time_ms: r.stats.time_ms,
            trouble: r.stats.trouble,
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
                timed: self.timed,
                time_ms: self.time_ms,
                trouble: self.trouble,
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
#[derive(Debug, Serialize, Clone)]
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

impl PlayerJson {
    /// A side of a game as lichess writes it.
    pub(crate) fn of(side: &mirror_core::game::PlayerSide) -> PlayerJson {
        PlayerJson {
            name: side.name.clone(),
            rating: side.rating,
        }
    }
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
    /// mirror's own: the game's page on Chess.com or lichess, where known.
    pub(crate) url: Option<String>,
    /// mirror's own: the moves the game played before it reached the position (it may have
    /// come by another order of moves), where its replay starts.
    pub(crate) ply: u32,
}

/// `/api/v1/game`: one stored game, to replay move by move.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GameJson {
    pub(crate) id: String,
    /// The game's page on Chess.com or lichess, where known.
    pub(crate) url: Option<String>,
    pub(crate) white: PlayerJson,
    pub(crate) black: PlayerJson,
    pub(crate) winner: Option<&'static str>,
    /// `1-0`, `0-1` or `1/2-1/2`.
    pub(crate) result: &'static str,
    pub(crate) speed: &'static str,
    pub(crate) mode: &'static str,
    /// `YYYY-MM-DD`, where known.
    pub(crate) date: Option<String>,
    /// The player's colour in it (none where neither side has one of their names).
    pub(crate) color: Option<&'static str>,
    /// The last named opening on its moves.
    pub(crate) opening: Option<OpeningJson>,
    pub(crate) moves: Vec<GameMoveJson>,
}

/// One move of a replayed game.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GameMoveJson {
    pub(crate) uci: String,
    pub(crate) san: String,
    /// The seconds it took, where the game's clock says.
    pub(crate) seconds: Option<f64>,
    /// The mover's clock left after it (before any increment), seconds, where known.
    pub(crate) clock: Option<f64>,
}

impl GameJson {
    /// The game as the page replays it; a stored move that does not replay is a damaged
    /// store, named.
    pub(crate) fn new(
        g: &mirror_core::GameRecord,
        color: Option<Color>,
    ) -> Result<GameJson, String> {
        let mut moves = Vec::with_capacity(g.moves.len());
        let mut opening = None;
        for (i, ply) in g.replay().enumerate() {
            let ply = ply.map_err(|e| format!("game {}: {e}", g.id))?;
            let time = g.times.get(i).copied().flatten();
            moves.push(GameMoveJson {
                uci: notation::uci(ply.mv),
                san: notation::san_plus(&ply.pos, ply.mv),
                seconds: time.map(|t| f64::from(t.spent_ms) / 1000.0),
                clock: time
                    .and_then(|t| t.left_ms)
                    .map(|ms| f64::from(ms) / 1000.0),
            });
            let mut after = ply.pos;
            after.play_unchecked(ply.mv);
            opening = Openings::builtin().at(&after).or(opening);
        }
        Ok(GameJson {
            id: g.id.0.clone(),
            url: g.id.url().map(str::to_string),
            white: PlayerJson::of(&g.white),
            black: PlayerJson::of(&g.black),
            winner: winner(g.result),
            result: match g.result {
                GameResult::WhiteWins => "1-0",
                GameResult::BlackWins => "0-1",
                GameResult::Draw => "1/2-1/2",
            },
            speed: speed(g.time_class),
            mode: if g.rated { "rated" } else { "casual" },
            date: g.date.map(|d| d.to_string()),
            color: color.map(color_name),
            opening: opening.map(OpeningJson::from),
            moves,
        })
    }
}

/// lichess's `winner`: the colour that won, none for a draw.
fn winner(r: GameResult) -> Option<&'static str> {
    match r {
        GameResult::WhiteWins => Some("white"),
        GameResult::BlackWins => Some("black"),
        GameResult::Draw => None,
    }
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
    /// mirror's own: the position's evaluation, where one is stored.
    pub(crate) eval: Option<EvalJson>,
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
        winner: winner(g.result),
        speed: speed(g.time_class),
        mode: if g.rated { "rated" } else { "casual" },
        white: PlayerJson::of(&g.white),
        black: PlayerJson::of(&g.black),
        year: g.date.map(|d| d.year),
        month: g.date.and_then(|d| d.month()).map(|m| m.to_string()),
        uci: r.mv.to_string(),
        url: g.id.url().map(str::to_string),
        ply: r.ply,
    }
}

#[derive(Serialize)]
pub(crate) struct Health {
    pub(crate) status: &'static str,
    pub(crate) players: usize,
    pub(crate) version: &'static str,
}

/// A position's evaluation as lichess's cloud evaluations give it: `cp` or `mate` from
/// White's side, with the depth, the best move and where it came from.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EvalJson {
    /// Centipawns from White's side (absent for a mate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    /// Mate in this many moves (positive: White mates; absent for centipawns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
    /// The depth searched (0: unknown, as for a game's comment).
    pub depth: u16,
    /// The best move, UCI.
    pub best: Option<String>,
    /// `engine` (`mirror analyse`) or `comment` (a game's `[%eval]`).
    pub source: &'static str,
}

impl EvalJson {
    /// The JSON of `e`.
    pub fn of(e: &Evaluation) -> EvalJson {
        let (cp, mate) = e.score.cp_mate();
        EvalJson {
            cp,
            mate,
            depth: e.depth,
            best: e.best.clone(),
            source: e.source.as_str(),
        }
    }

    /// As a player reads it: `+0.31`, `-1.20`, `#3`, `#-2`.
    pub fn text(&self) -> String {
        match (self.cp, self.mate) {
            (_, Some(m)) => format!("#{m}"),
            (Some(c), None) => format!("{:+.2}", f64::from(c) / 100.0),
            (None, None) => "-".into(),
        }
    }
}

pub(crate) fn pct_text(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// `/api/v1/pace`'s answer: how long the player would take, and why.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaceAnswer {
    /// The wait, in seconds (milliseconds kept).
    pub seconds: f64,
    /// `book` (the player's average time here), `model` (their share of the clock at
    /// this stage and clock left), `clock` (a fixed share of the clock left: no timed
    /// move at all) or `none` (no time here and no clock given).
    pub source: &'static str,
    /// The timed games here (`book`) or the timed moves of the model (`model`).
    pub timed: Option<u32>,
    /// The model's share of the clock left (`model`).
    pub share: Option<f64>,
    /// Whether the clock cut the wait short.
    pub capped: bool,
    /// The same in words.
    pub detail: String,
}

impl PaceAnswer {
    /// The answer for `p`.
    pub fn new(p: &mirror_engine::pace::Pace) -> PaceAnswer {
        use mirror_engine::pace::PaceSource;
        let (source, timed, share) = match p.source {
            PaceSource::Book { timed } => ("book", Some(timed), None),
            PaceSource::Model { share, moves } => ("model", Some(moves), Some(share)),
            PaceSource::ClockShare => ("clock", None, None),
            PaceSource::Nothing => ("none", None, None),
        };
        PaceAnswer {
            seconds: p.wait.as_millis() as f64 / 1000.0,
            source,
            timed,
            share,
            capped: p.capped,
            detail: p.to_string(),
        }
    }
}

/// `mirror edges`' lines, from [`mirror_store::analysis::edge_sums`]: one compact JSON
/// object per (position, move) with its W/D/L, and the moves' times when any is known
/// (timed moves, milliseconds, moves in time trouble), sorted bytewise, as the reference
/// script (`tests/reference/graph.py`) prints them.
pub fn edge_lines(
    sums: &[(String, mirror_core::MoveCode, MoveStats)],
) -> Result<Vec<String>, serde_json::Error> {
    let mut lines = Vec::with_capacity(sums.len());
    for (epd, mv, s) in sums {
        let (epd, (w, d, l)) = (serde_json::to_string(epd)?, (s.wins, s.draws, s.losses));
        let mut line = format!(r#"{{"epd":{epd},"uci":"{mv}","w":{w},"d":{d},"l":{l}"#);
        if s.timed > 0 {
            let (n, ms, tt) = (s.timed, s.time_ms, s.trouble);
            line += &format!(r#","n":{n},"ms":{ms},"tt":{tt}"#);
        }
        lines.push(line + "}");
    }
    lines.sort();
    Ok(lines)
}
