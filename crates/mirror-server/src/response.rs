//! The JSON bodies of the API's answers (errors are in `error.rs`), apart from the handlers
//! that fill them.

use mirror_core::{
    GameResult, MoveStats, PositionKey, TimeClass,
    codec::color_name,
    notation,
    openings::{Opening, Openings},
    stats::FEW_GAMES,
    time::Date,
};
use mirror_store::{MoveRow, RecentGame};
use serde::Serialize;
use shakmaty::{Chess, Color, Position};

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
    /// The time the move took, where the games' clocks say (null: no game says).
    pub(crate) time: Option<TimeJson>,
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
    /// Where the player burns their clock.
    pub clock: crate::burn::ClockJson,
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
            clock: crate::burn::ClockJson::new(&r.clock),
        }
    }
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
        writeln!(
            w,
            "{:<8} {:>7} {:>6} {:>6} {:>6} {:>18} {:>7} {:>6} {:>8}  {:<11} opening",
            "move",
            "games",
            "win%",
            "draw%",
            "loss%",
            "score% (95%)",
            "avg opp",
            "perf",
            "avg time",
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
            writeln!(
                w,
                "{:<8} {:>7} {:>6.1} {:>6.1} {:>6.1} {:>18} {:>7} {:>6} {:>8}  {:<11} {}",
                m.san,
                m.games,
                m.win_pct,
                m.draw_pct,
                m.loss_pct,
                score,
                m.average_opponent_rating
                    .map_or("-".to_string(), |r| r.to_string()),
                m.performance.map_or("-".to_string(), |r| r.to_string()),
                m.time
                    .map_or("-".to_string(), |t| format!("{:.1}s", t.average_seconds)),
                m.last_played.as_deref().unwrap_or("-"),
                m.opening
                    .as_ref()
                    .map_or(String::new(), |o| format!("{} {}", o.eco, o.name))
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
    })
}

impl ExploreTable {
    /// The answer for `user` at the end of `path` (the positions from the start; an empty
    /// path is the start itself; its opening is the last named one on it), from the `rows`
    /// read there with the player's colour `player_color` (`None`: both) and, if given,
    /// against `opponent` only.
    pub fn new(
        user: String,
        path: &[Chess],
        player_color: Option<shakmaty::Color>,
        opponent: Option<String>,
        rows: &[MoveRow],
    ) -> Result<ExploreTable, mirror_store::StoreError> {
        let pos = path.last().cloned().unwrap_or_default();
        let opening = Openings::builtin().along(path);
        let mut total = MoveStats::default();
        let moves = rows
            .iter()
            .map(|r| {
                total.merge(&r.stats);
                explore_row(&pos, r, opening)
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
        writeln!(w, "\nSurprises (opponent replies met only a few times):")?;
        for s in &r.surprises {
            writeln!(w, "- {}\n    {}", place_line(&s.place), move_line(&s.reply))?;
        }
        writeln!(w, "\nRepertoire drift (share of each move by quarter):")?;
        for d in &r.drift {
            writeln!(w, "- {}", place_line(&d.place))?;
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
