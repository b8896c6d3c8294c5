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

/// A move the engine says loses, JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportEngineLoss {
    /// Where.
    #[serde(flatten)]
    pub place: ReportPlace,
    /// The moves to it in SAN, numbered (`1. d4 d5 2. e4`).
    pub line: String,
    /// The player's move, and how those games went.
    pub played: ReportMove,
    /// Win% points it loses against the engine's best move.
    pub win_loss: f64,
    /// Points it is expected to cost: games x win% lost / 100.
    pub expected_loss: f64,
    /// lichess's mark: `inaccuracy`, `mistake` or `blunder`.
    pub judgement: &'static str,
    /// The position's evaluation (the best move's).
    pub eval_before: EvalJson,
    /// The evaluation after the player's move.
    pub eval_after: EvalJson,
    /// The engine's best move here (UCI and SAN).
    pub best: Option<BestMoveJson>,
    /// How the player scored when they did play it (null: never).
    pub best_played: Option<ReportMove>,
}

/// The engine's best move, JSON.
#[derive(Serialize)]
pub struct BestMoveJson {
    /// UCI.
    pub uci: String,
    /// SAN.
    pub san: String,
}

/// How much of the report's ground is analysed.
#[derive(Serialize)]
pub struct ReportAnalysed {
    /// Positions of the report's size (the player to move) with an evaluation.
    pub evaluated: usize,
    /// Such positions in all.
    pub positions: usize,
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

/// The name of the report's statistical test, as its JSON gives it.
pub const REPORT_TEST: &str = "fisher-exact-two-sided+benjamini-hochberg";

/// A surprise, JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportSurprise {
    /// Where (the opponent to move).
    #[serde(flatten)]
    pub place: ReportPlace,
    /// The rare reply and how those games went.
    pub reply: ReportMove,
    /// The player's score after the position's other replies.
    pub others_score: f64,
    /// Games after the other replies.
    pub others_games: u32,
    /// The test's p-value (lost against not lost, this reply against the others).
    pub p_value: f64,
    /// Its Benjamini-Hochberg q-value over every rare reply tested (kept below 0.05).
    pub q_value: f64,
    /// The test: [`REPORT_TEST`].
    pub test: &'static str,
}

/// An opponent's mistake the player does not punish, JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportUnpunished {
    /// Where (the opponent to move).
    #[serde(flatten)]
    pub place: ReportPlace,
    /// The moves to it in SAN, numbered.
    pub line: String,
    /// The opponent's move, and how those games went for the player.
    pub mistake: ReportMove,
    /// Win% points it lost for the opponent.
    pub gift: f64,
    /// lichess's mark of the opponent's move.
    pub judgement: &'static str,
    /// The player's usual reply, and how those games went.
    pub reply: ReportMove,
    /// Win% points the reply gives back.
    pub given_back: f64,
    /// The punishing reply, the engine's best after the mistake.
    pub best: Option<BestMoveJson>,
    /// The evaluations before the mistake, after it and after the reply.
    pub evals: [EvalJson; 3],
}

/// A position where the player's tree ends, JSON.
#[derive(Serialize)]
pub struct ReportBookExit {
    /// Where.
    #[serde(flatten)]
    pub place: ReportPlace,
    /// The moves to it in SAN, numbered.
    pub line: String,
    /// The engine's evaluation there.
    pub eval: EvalJson,
    /// The player's win% by it.
    pub win: f64,
}

/// Where the player leaves their book in one opening, JSON.
#[derive(Serialize)]
pub struct ReportBookLine {
    /// The opening (the last named position on the way).
    pub opening: Option<OpeningJson>,
    /// The player's colour.
    pub color: &'static str,
    /// Positions where the tree ends.
    pub exits: usize,
    /// Of those, evaluated.
    pub analysed: usize,
    /// Games through the evaluated ones.
    pub games: u32,
    /// The player's win% there, weighted by games (one decimal).
    pub win: f64,
    /// The worst for the player first (three at most).
    pub worst: Vec<ReportBookExit>,
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
#[serde(rename_all = "camelCase")]
pub struct ReportDrift {
    /// Where.
    #[serde(flatten)]
    pub place: ReportPlace,
    /// By quarter, oldest first.
    pub quarters: Vec<ReportQuarter>,
    /// The player's most played move there (UCI).
    pub uci: String,
    /// Its SAN.
    pub san: String,
    /// The earlier half of the dated games: [games with the move, games].
    pub earlier: [u32; 2],
    /// The later half.
    pub later: [u32; 2],
    /// The test's p-value (the move against the others, earlier against later).
    pub p_value: f64,
    /// Its Benjamini-Hochberg q-value over every position tested (kept below 0.05).
    pub q_value: f64,
    /// The test: [`REPORT_TEST`].
    pub test: &'static str,
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
    /// Where the player burns their clock.
    pub clock: burn::ClockJson,
    /// The player's moves the engine says lose, most costly first (`mirror analyse`).
    pub engine: Vec<ReportEngineLoss>,
    /// How much of the report's ground the engine has seen.
    pub analysed: ReportAnalysed,
    /// The opponents' mistakes the player does not punish, costliest first.
    pub unpunished: Vec<ReportUnpunished>,
    /// The evaluation where the player leaves their book, per opening line.
    pub book: Vec<ReportBookLine>,
}

/// The numbered SAN of `path` from the start (`1. d4 d5 2. e4`).
fn san_line(path: &[mirror_core::MoveCode]) -> String {
    let mut pos = Chess::default();
    let mut out = Vec::new();
    for (i, code) in path.iter().enumerate() {
        let Ok(m) = code.to_move(&pos) else {
            break;
        };
        let san = notation::san(&pos, m);
        out.push(if i % 2 == 0 {
            format!("{}. {san}", i / 2 + 1)
        } else {
            san
        });
        pos.play_unchecked(m);
    }
    out.join(" ")
}

impl ReportJson {
    /// The JSON form of a report.
    pub fn new(user: &str, r: &mirror_store::report::Report) -> ReportJson {
        let place = report_place;
        let mv = report_move;
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
                        others_score: s.others.score,
                        others_games: s.others_games,
                        p_value: s.p_value,
                        q_value: s.q_value,
                        test: REPORT_TEST,
                    }
                })
                .collect(),
            drift: r
                .drift
                .iter()
                .map(|d| {
                    let (p, pos) = place(&d.place);
                    let main = d.mv.to_move(&pos).expect("a report move is legal");
                    ReportDrift {
                        place: p,
                        uci: notation::uci(main),
                        san: notation::san(&pos, main),
                        earlier: [d.earlier.0, d.earlier.1],
                        later: [d.later.0, d.later.1],
                        p_value: d.p_value,
                        q_value: d.q_value,
                        test: REPORT_TEST,
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
            clock: burn::ClockJson::new(&r.clock),
            engine: r
                .engine
                .iter()
                .map(|e| {
                    let (p, pos) = place(&e.place);
                    let best = best_move(&pos, e.before.best.as_deref());
                    ReportEngineLoss {
                        place: p,
                        line: san_line(&e.place.path),
                        played: mv(&pos, &e.played),
                        win_loss: (e.win_loss * 10.0).round() / 10.0,
                        expected_loss: (e.expected_loss * 100.0).round() / 100.0,
                        judgement: Judgement::of(e.win_loss).map_or("", Judgement::as_str),
                        eval_before: EvalJson::of(&e.before),
                        eval_after: EvalJson::of(&e.after),
                        best,
                        best_played: e.best_played.as_ref().map(|b| mv(&pos, b)),
                    }
                })
                .collect(),
            analysed: ReportAnalysed {
                evaluated: r.analysed.0,
                positions: r.analysed.1,
            },
            unpunished: r
                .unpunished
                .iter()
                .map(|u| {
                    let (p, pos) = place(&u.place);
                    let mut after = pos.clone();
                    if let Ok(m) = u.mistake.mv.to_move(&pos) {
                        after.play_unchecked(m);
                    }
                    ReportUnpunished {
                        place: p,
                        line: san_line(&u.place.path),
                        mistake: mv(&pos, &u.mistake),
                        gift: (u.gift * 10.0).round() / 10.0,
                        judgement: Judgement::of(u.gift).map_or("", Judgement::as_str),
                        reply: mv(&after, &u.reply),
                        given_back: (u.given_back * 10.0).round() / 10.0,
                        best: best_move(&after, u.evals[1].best.as_deref()),
                        evals: u.evals.each_ref().map(EvalJson::of),
                    }
                })
                .collect(),
            book: r
                .book
                .iter()
                .map(|l| ReportBookLine {
                    opening: l.opening.as_ref().map(OpeningJson::from),
                    color: mirror_core::codec::color_name(l.color),
                    exits: l.exits,
                    analysed: l.analysed,
                    games: l.games,
                    win: (l.win * 10.0).round() / 10.0,
                    worst: l
                        .worst
                        .iter()
                        .map(|x| ReportBookExit {
                            place: place(&x.place).0,
                            line: san_line(&x.place.path),
                            eval: EvalJson::of(&x.eval),
                            win: (x.win * 10.0).round() / 10.0,
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

/// The engine's best move `uci` at `pos`, UCI and SAN (`None` if it is not legal there).
fn best_move(pos: &Chess, uci: Option<&str>) -> Option<BestMoveJson> {
    let uci = uci?;
    let legal = uci
        .parse::<shakmaty::uci::UciMove>()
        .ok()?
        .to_move(pos)
        .ok()?;
    Some(BestMoveJson {
        uci: uci.to_string(),
        san: notation::san(pos, legal),
    })
}

/// A report's place as JSON, and its position.
pub(crate) fn report_place(p: &mirror_store::report::Place) -> (ReportPlace, Chess) {
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
}

/// A report's move at `pos` as JSON.
fn report_move(pos: &Chess, m: &mirror_store::report::MoveScore) -> ReportMove {
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

/// The evaluations an explorer answer shows: the position's own, and the position's after
/// each of its moves (in the rows' order), as stored by `mirror analyse`.
#[derive(Debug, Default)]
pub struct ExploreEvals {
    here: Option<Evaluation>,
    after: Vec<Option<Evaluation>>,
}

/// What an explorer row says of a move from the evaluations: the evaluation after it, the
/// win% it loses against the best move, and lichess's mark.
#[derive(Debug, Default)]
pub struct MoveTruth {
    /// The evaluation after the move.
    pub eval: Option<EvalJson>,
    /// Win% points lost against the best move, for the side that played it (one decimal).
    pub win_loss: Option<f64>,
    /// `inaccuracy`, `mistake` or `blunder`.
    pub judgement: Option<Judgement>,
}

impl ExploreEvals {
    /// The evaluations of the position `pos` and of the positions its `rows` lead to.
    pub fn read<S: mirror_store::GraphStore + ?Sized>(
        store: &S,
        pos: PositionKey,
        rows: &[MoveRow],
    ) -> Result<ExploreEvals, mirror_store::StoreError> {
        let keys: Vec<PositionKey> = std::iter::once(pos)
            .chain(rows.iter().map(|r| r.child))
            .collect();
        let mut found = store.evaluations(&keys)?.into_iter();
        Ok(ExploreEvals {
            here: found.next().flatten(),
            after: found.collect(),
        })
    }

    /// The position's own evaluation.
    pub fn here(&self) -> Option<EvalJson> {
        self.here.as_ref().map(EvalJson::of)
    }

    /// What the evaluations say of the `i`th row's move, `uci`, played by `mover`.
    pub fn of_move(&self, i: usize, uci: &str, mover: Color) -> MoveTruth {
        let after = self.after.get(i).and_then(Option::as_ref);
        let win_loss = match (&self.here, after) {
            (Some(before), Some(after)) => Some(move_loss(before, after, mover, uci)),
            _ => None,
        };
        MoveTruth {
            eval: after.map(EvalJson::of),
            win_loss: win_loss.map(|l| (l * 10.0).round() / 10.0),
            judgement: win_loss.and_then(Judgement::of),
        }
    }
}

/// One move of `mirror explore`'s answer (its JSON, and its table's row).
#[derive(Debug, Serialize)]
pub struct ExploreRowJson {
    /// The move, UCI.
    pub uci: String,
    /// The move, SAN.
    pub san: String,
    /// Games.
    pub games: u32,
    /// Games the player won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the player lost.
    pub losses: u32,
    /// Wins in percent of the games (one decimal).
    pub win_pct: f64,
    /// Draws in percent.
    pub draw_pct: f64,
    /// Losses in percent.
    pub loss_pct: f64,
    /// The player's score with this move (wins + half the draws per game) and its 95%
    /// Wilson interval, in percent.
    pub score: f64,
    /// The interval's low end, in percent.
    pub score_low: f64,
    /// The interval's high end, in percent.
    pub score_high: f64,
    /// Fewer games than `FEW_GAMES`: the score means little.
    pub few_games: bool,
    /// The opponents' average rating, where known.
    pub average_opponent_rating: Option<u32>,
    /// The player's performance rating with the move.
    pub performance: Option<i32>,
    /// The first game's date.
    pub first_played: Option<String>,
    /// The newest game's date.
    pub last_played: Option<String>,
    /// The opening after this move (the position's own name, else the path's).
    pub opening: Option<OpeningJson>,
    /// The time the move took, where the games' clocks say.
    pub time: Option<TimeJson>,
    /// The evaluation after the move, where `mirror analyse` stored one.
    pub eval: Option<EvalJson>,
    /// Win% points the move loses against the best one (both positions evaluated).
    pub win_loss: Option<f64>,
    /// lichess's mark for that loss: `inaccuracy`, `mistake` or `blunder`.
    pub judgement: Option<&'static str>,
}

/// `mirror explore`'s answer: the position, whose moves they are, the totals and every
/// move (its JSON, and what its table shows).
#[derive(Debug, Serialize)]
pub struct ExploreTable {
    /// The player.
    pub user: String,
    /// The position.
    pub fen: String,
    /// `white` or `black`.
    pub side_to_move: &'static str,
    /// The player's colour in the games counted (`None`: both).
    pub player_color: Option<&'static str>,
    /// Whether the moves are the player's (else the opponents' replies).
    pub players_moves: Option<bool>,
    /// Only games against this opponent.
    pub opponent: Option<String>,
    /// The opening: the last named position on the path given (by position, so a
    /// transposition gets its name).
    pub opening: Option<OpeningJson>,
    /// Games.
    pub games: u32,
    /// Games the player won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the player lost.
    pub losses: u32,
    /// The position's evaluation, where `mirror analyse` stored one.
    pub eval: Option<EvalJson>,
    /// Every move, most played first.
    pub moves: Vec<ExploreRowJson>,
}

impl std::fmt::Display for ExploreTable {
    /// `mirror explore`'s table.
    fn fmt(&self, w: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let out = self;
        writeln!(w, "{}  ({} to move)", out.fen, out.side_to_move)?;
        if let Some(o) = &out.opening {
            writeln!(w, "opening: {} {}", o.eco, o.name)?;
        }
        let whose = match (out.player_color, out.players_moves) {
            (Some(c), Some(true)) => format!("{}'s moves as {c}", out.user),
            (Some(c), Some(false)) => format!("opponents' replies to {} playing {c}", out.user),
            _ => format!("moves in {}'s games (both colours)", out.user),
        };
        let whose = match &out.opponent {
            Some(o) => format!("{whose} against {o}"),
            None => whose,
        };
        writeln!(
            w,
            "{whose}: {} games; win/draw/loss from {}'s side",
            out.games, out.user
        )?;
        if out.moves.is_empty() {
            writeln!(w, "(no games reach this position with these filters)")?;
            return Ok(());
        }
        if let Some(e) = &out.eval {
            writeln!(
                w,
                "evaluation: {} (depth {}{})",
                e.text(),
                e.depth,
                e.best
                    .as_deref()
                    .map_or(String::new(), |b| format!(", best {b}"))
            )?;
        }
        // The engine's columns only where the moves are evaluated.
        let evaluated = out.moves.iter().any(|m| m.eval.is_some());
        writeln!(
            w,
            "{:<8} {:>7} {:>6} {:>6} {:>6} {:>18} {:>7} {:>6} {:>8}  {}{:<11} opening",
            "move",
            "games",
            "win%",
            "draw%",
            "loss%",
            "score% (95%)",
            "avg opp",
            "perf",
            "mean time",
            if evaluated {
                format!("{:>7} {:>5}  ", "eval", "lost")
            } else {
                String::new()
            },
            "last played",
        )?;
        for m in &out.moves {
            let score = format!(
                "{}{:.1} [{:.0}-{:.0}]",
                if m.few_games { "?" } else { "" },
                m.score,
                m.score_low,
                m.score_high
            );
            let mark = m
                .judgement
                .and_then(|j| {
                    [
                        Judgement::Inaccuracy,
                        Judgement::Mistake,
                        Judgement::Blunder,
                    ]
                    .into_iter()
                    .find(|k| k.as_str() == j)
                })
                .map_or("", Judgement::symbol);
            writeln!(
                w,
                "{:<8} {:>7} {:>6.1} {:>6.1} {:>6.1} {:>18} {:>7} {:>6} {:>8}  {}{:<11} {}",
                format!("{}{mark}", m.san),
                m.games,
                m.win_pct,
                m.draw_pct,
                m.loss_pct,
                score,
                m.average_opponent_rating
                    .map_or("-".to_string(), |r| r.to_string()),
                m.performance.map_or("-".to_string(), |r| r.to_string()),
                m.time.map_or("-".to_string(), |t| {
                    mirror_core::time::duration_text(t.average_seconds)
                }),
                if evaluated {
                    format!(
                        "{:>7} {:>5}  ",
                        m.eval.as_ref().map_or("-".to_string(), EvalJson::text),
                        m.win_loss.map_or("-".to_string(), |l| format!("{l:.1}"))
                    )
                } else {
                    String::new()
                },
                m.last_played.as_deref().unwrap_or("-"),
                m.opening
                    .as_ref()
                    .map_or(String::new(), |o| format!("{} {}", o.eco, o.name))
            )?;
        }
        if evaluated {
            writeln!(
                w,
                "eval: after the move, from White's side; lost: win% points lost against the \
                 best move (?! 5 or more, ? 10, ?? 15)"
            )?;
        }
        if out.moves.iter().any(|m| m.few_games) {
            writeln!(
                w,
                "? fewer than {FEW_GAMES} games: the score means little (see its interval)"
            )?;
        }
        Ok(())
    }
}

fn pct(n: u32, d: u32) -> f64 {
    if d == 0 {
        0.0
    } else {
        (1000.0 * f64::from(n) / f64::from(d)).round() / 10.0
    }
}

fn date_text(v: u32) -> Option<String> {
    Date::from_u32(v).map(|d| d.to_string())
}

fn explore_row(
    pos: &Chess,
    row: &MoveRow,
    here: Option<&Opening>,
    truth: MoveTruth,
) -> Result<ExploreRowJson, mirror_store::StoreError> {
    let (m, interval) = row.checked(pos, PositionKey::from_position(pos))?;
    let s = &row.stats;
    let g = s.games();
    let percent = |x: f64| (1000.0 * x).round() / 10.0;
    let mut child = pos.clone();
    child.play_unchecked(m);
    Ok(ExploreRowJson {
        uci: notation::uci(m),
        san: notation::san(pos, m),
        games: g,
        wins: s.wins,
        draws: s.draws,
        losses: s.losses,
        win_pct: pct(s.wins, g),
        draw_pct: pct(s.draws, g),
        loss_pct: pct(s.losses, g),
        score: percent(interval.score),
        score_low: percent(interval.low),
        score_high: percent(interval.high),
        few_games: g < FEW_GAMES,
        average_opponent_rating: s.average_opponent_rating(),
        performance: s.performance(),
        first_played: date_text(s.first),
        last_played: date_text(s.last),
        opening: Openings::builtin()
            .at(&child)
            .or(here)
            .map(OpeningJson::from),
        time: TimeJson::of(s),
        eval: truth.eval,
        win_loss: truth.win_loss,
        judgement: truth.judgement.map(Judgement::as_str),
    })
}

impl ExploreTable {
    /// The answer for `user` at the end of `path` (the positions from the start; an empty
    /// path is the start itself; its opening is the last named one on it), from the `rows`
    /// read there with the player's colour `player_color` (`None`: both) and, if given,
    /// against `opponent` only, with the evaluations `evals` of the position and its moves.
    pub fn new(
        user: String,
        path: &[Chess],
        player_color: Option<shakmaty::Color>,
        opponent: Option<String>,
        rows: &[MoveRow],
        evals: &ExploreEvals,
    ) -> Result<ExploreTable, mirror_store::StoreError> {
        let pos = path.last().cloned().unwrap_or_default();
        let opening = Openings::builtin().along(path);
        let mut total = MoveStats::default();
        let moves = rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                total.merge(&r.stats);
                let uci =
                    r.mv.to_move(&pos)
                        .map(notation::uci)
                        .map_err(|e| mirror_store::StoreError::Corrupt(e.to_string()))?;
                explore_row(&pos, r, opening, evals.of_move(i, &uci, pos.turn()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ExploreTable {
            user,
            fen: notation::fen(&pos),
            side_to_move: color_name(pos.turn()),
            player_color: player_color.map(color_name),
            players_moves: player_color.map(|c| c == pos.turn()),
            opponent,
            opening: opening.map(OpeningJson::from),
            games: total.games(),
            wins: total.wins,
            draws: total.draws,
            losses: total.losses,
            eval: evals.here(),
            moves,
        })
    }
}

/// `mirror players`: every player with their games, edge rows and accounts, and the
/// positions of the store.
#[derive(Debug, Serialize)]
pub struct PlayerList {
    /// The players.
    pub players: Vec<PlayerRowJson>,
    /// Positions in the store.
    pub positions: u64,
}

/// One player of [`PlayerList`].
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerRowJson {
    /// The name as stored.
    pub name: String,
    /// Games.
    pub games: u64,
    /// Edge rows.
    pub edge_rows: u64,
    /// The profile's accounts.
    pub accounts: Vec<AccountJson>,
}

/// An account of a profile.
#[derive(Debug, Serialize)]
pub struct AccountJson {
    /// `chesscom`, `lichess` or `otb`.
    pub source: &'static str,
    /// The name there.
    pub name: String,
}

impl PlayerList {
    /// Reads the list from `store`.
    pub fn read<S: mirror_store::GraphStore + ?Sized>(
        store: &S,
    ) -> Result<PlayerList, mirror_store::StoreError> {
        let mut players = Vec::new();
        for p in store.players()? {
            let accounts = store.accounts(&p.name)?;
            players.push(PlayerRowJson {
                edge_rows: store.counts(&p.name)?.edge_rows,
                accounts: accounts
                    .into_iter()
                    .map(|a| AccountJson {
                        source: a.source.as_str(),
                        name: a.name,
                    })
                    .collect(),
                name: p.name,
                games: p.games,
            });
        }
        Ok(PlayerList {
            players,
            positions: store.position_count()?,
        })
    }
}

impl std::fmt::Display for PlayerList {
    /// A line per player: name, games, edge rows, accounts.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for p in &self.players {
            let accounts: Vec<String> = p
                .accounts
                .iter()
                .map(|a| format!("{}:{}", a.source, a.name))
                .collect();
            write!(
                f,
                "{}\t{} games\t{} edge rows",
                p.name, p.games, p.edge_rows
            )?;
            if !accounts.is_empty() {
                write!(f, "\taccounts {}", accounts.join(", "))?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

pub(crate) fn pct_text(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

pub(crate) fn place_line(p: &ReportPlace) -> String {
    format!(
        "{} ({} as {}, {} games, score {} [{}-{}]){}",
        if p.moves.is_empty() {
            "start position".to_string()
        } else {
            p.moves.join(" ")
        },
        p.fen,
        p.color,
        p.games,
        pct_text(p.score),
        pct_text(p.low),
        pct_text(p.high),
        p.opening
            .as_ref()
            .map_or(String::new(), |o| format!("  {} {}", o.eco, o.name))
    )
}

fn move_line(m: &ReportMove) -> String {
    format!(
        "{} {} games ({}), W/D/L {}/{}/{}, score {} [{}-{}]",
        m.san,
        m.games,
        pct_text(m.share),
        m.wins,
        m.draws,
        m.losses,
        pct_text(m.score),
        pct_text(m.low),
        pct_text(m.high)
    )
}

impl std::fmt::Display for ReportJson {
    /// `mirror report`'s text: where to study, section by section.
    fn fmt(&self, w: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let r = self;
        writeln!(
            w,
            "Where {} should study (average score: as White {}, as Black {})",
            r.user,
            r.average_white.map_or("-".into(), pct_text),
            r.average_black.map_or("-".into(), pct_text)
        )?;
        writeln!(
            w,
            "\nWhere you lose by the engine (points expected lost: games x win% lost; {} of \
             {} positions analysed{}):",
            r.analysed.evaluated,
            r.analysed.positions,
            if r.analysed.evaluated == 0 {
                "; run mirror analyse"
            } else {
                ""
            }
        )?;
        for e in &r.engine {
            writeln!(
                w,
                "- {} {}{}  ({}, as {}, {} games)\n  {:.1} points expected lost: {:.1} win% \
                 lost, {} -> {}",
                if e.line.is_empty() {
                    "start:".to_string()
                } else {
                    format!("{}:", e.line)
                },
                e.played.san,
                Judgement::of(e.win_loss).map_or("", Judgement::symbol),
                e.place.fen,
                e.place.color,
                e.played.games,
                e.expected_loss,
                e.win_loss,
                e.eval_before.text(),
                e.eval_after.text()
            )?;
            writeln!(w, "    played: {}", move_line(&e.played))?;
            match (&e.best, &e.best_played) {
                (Some(b), Some(p)) => writeln!(w, "    better: {} ({})", b.san, move_line(p))?,
                (Some(b), None) => writeln!(w, "    better: {} (never played)", b.san)?,
                _ => {}
            }
        }
        writeln!(w, "\nCostly positions (games x score below the average):")?;
        for c in &r.costly {
            writeln!(
                w,
                "- {}\n  {:.1} points lost: {} below the average {}",
                place_line(&c.place),
                c.cost,
                pct_text(c.deficit),
                pct_text(c.average)
            )?;
            for m in &c.played {
                writeln!(w, "    {}", move_line(m))?;
            }
        }
        writeln!(
            w,
            "\nDeviations (positions where the player varies their move):"
        )?;
        for d in &r.deviations {
            writeln!(w, "- {}", place_line(&d.place))?;
            for m in &d.choices {
                writeln!(w, "    {}", move_line(m))?;
            }
        }
        writeln!(
            w,
            "\nThe opponents' mistakes you do not punish (win% they gave, win% your usual \
             reply gives back):"
        )?;
        for u in &r.unpunished {
            writeln!(
                w,
                "- {} {}{} ({:.1} win% given) then your {} gives back {:.1}  ({}, as {})",
                if u.line.is_empty() {
                    "start:".to_string()
                } else {
                    format!("{}:", u.line)
                },
                u.mistake.san,
                Judgement::of(u.gift).map_or("", Judgement::symbol),
                u.gift,
                u.reply.san,
                u.given_back,
                u.place.fen,
                u.place.color
            )?;
            writeln!(w, "    your reply: {}", move_line(&u.reply))?;
            if let Some(b) = &u.best {
                writeln!(
                    w,
                    "    punish with: {} ({} -> {})",
                    b.san,
                    u.evals[1].text(),
                    u.evals[2].text()
                )?;
            }
        }
        writeln!(
            w,
            "\nWhen you leave your book (the engine's word where your tree ends, your win%):"
        )?;
        for l in &r.book {
            writeln!(
                w,
                "- {} as {}: {:.1}% over {} games ({} of {} exits analysed)",
                l.opening
                    .as_ref()
                    .map_or("(no name)".to_string(), |o| format!("{} {}", o.eco, o.name)),
                l.color,
                l.win,
                l.games,
                l.analysed,
                l.exits
            )?;
            for x in &l.worst {
                writeln!(
                    w,
                    "    {:.1}% {} ({} games): {}",
                    x.win,
                    x.eval.text(),
                    x.place.games,
                    if x.line.is_empty() { "start" } else { &x.line }
                )?;
            }
        }
        writeln!(
            w,
            "\nSurprises (rare replies after which you lose more often than after the others; \
             Fisher's exact test, Benjamini-Hochberg q < 0.05):"
        )?;
        for s in &r.surprises {
            writeln!(
                w,
                "- {}\n    {}\n    others: {} over {} games, p = {:.4}, q = {:.3}",
                place_line(&s.place),
                move_line(&s.reply),
                pct_text(s.others_score),
                s.others_games,
                s.p_value,
                s.q_value
            )?;
        }
        writeln!(
            w,
            "\nRepertoire drift (your main move's share changed, earlier against later half; \
             Fisher's exact test, Benjamini-Hochberg q < 0.05):"
        )?;
        for d in &r.drift {
            writeln!(
                w,
                "- {}\n    {}: {}/{} earlier, {}/{} later, p = {:.4}, q = {:.3}",
                place_line(&d.place),
                d.san,
                d.earlier[0],
                d.earlier[1],
                d.later[0],
                d.later[1],
                d.p_value,
                d.q_value
            )?;
            for q in &d.quarters {
                let shares: Vec<String> = q
                    .shares
                    .iter()
                    .map(|(m, s)| format!("{m} {}", pct_text(*s)))
                    .collect();
                writeln!(
                    w,
                    "    {} ({} games): {}",
                    q.quarter,
                    q.games,
                    shares.join(", ")
                )?;
            }
        }
        write!(w, "{}", r.clock)
    }
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
