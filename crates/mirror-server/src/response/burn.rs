//! The report's part about time ("where you burn your clock",
//! `mirror_store::report::burn::ClockReport`) as JSON and as text.

use mirror_core::clock::{BANDS, STAGES};
use mirror_store::report::burn::{ClockReport, TroubleSplit};
use serde::Serialize;

use super::{ReportPlace, pct_text, place_line, report_place};

/// A slow position, JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SlowJson {
    /// Where (its games: those of the time class).
    #[serde(flatten)]
    pub place: ReportPlace,
    /// The time class of the games counted.
    pub time_class: &'static str,
    /// The player's average time there, in seconds.
    pub seconds: f64,
    /// Their average time per move in games of that class, in seconds.
    pub usual_seconds: f64,
    /// Seconds over usual seconds.
    pub ratio: f64,
    /// Moves made there in time trouble.
    pub trouble: u32,
}

/// A score with its interval over some games, JSON.
#[derive(Serialize)]
pub struct GamesScoreJson {
    /// Games.
    pub games: u32,
    /// The player's score (0 to 1), null without games.
    pub score: Option<f64>,
    /// Its 95% interval's lower bound.
    pub low: Option<f64>,
    /// Its upper bound.
    pub high: Option<f64>,
}

/// The score with and without time trouble, JSON.
#[derive(Serialize)]
pub struct TroubleJson {
    /// The opening family, null for all the timed games.
    pub opening: Option<String>,
    /// Games with at least one of the player's moves in time trouble.
    pub trouble: GamesScoreJson,
    /// The other timed games.
    pub calm: GamesScoreJson,
}

/// A cell of the player's pace ([`mirror_core::clock::TimeModel`]), JSON.
#[derive(Serialize)]
pub struct PaceJson {
    /// The stage of the game ([`mirror_core::clock::STAGES`]).
    pub stage: &'static str,
    /// How much of the clock is left ([`mirror_core::clock::BANDS`]).
    pub clock: &'static str,
    /// The player's timed moves there.
    pub moves: u32,
    /// The average share of the clock left they spend on a move there (0 to 1, four
    /// decimals), null without moves.
    pub share: Option<f64>,
}

/// Where the player burns their clock, JSON.
#[derive(Serialize)]
pub struct ClockJson {
    /// Positions where they think longest relative to their usual move, slowest first.
    pub slow: Vec<SlowJson>,
    /// All timed games.
    pub overall: TroubleJson,
    /// By opening family, most games first.
    pub openings: Vec<TroubleJson>,
    /// How much of their clock they spend on a move, by stage and clock left: what paces
    /// the mirror where the book has no time (twelve cells, stage by stage).
    pub pace: Vec<PaceJson>,
}

fn trouble_json(s: &TroubleSplit) -> TroubleJson {
    let [trouble, calm] = s.scores();
    let side = |stats: &mirror_core::MoveStats, i: Option<mirror_core::stats::ScoreInterval>| {
        GamesScoreJson {
            games: stats.games(),
            score: i.map(|i| i.score),
            low: i.map(|i| i.low),
            high: i.map(|i| i.high),
        }
    };
    TroubleJson {
        opening: s.opening.clone(),
        trouble: side(&s.trouble, trouble),
        calm: side(&s.calm, calm),
    }
}

impl ClockJson {
    /// The JSON form of the report's part about time.
    pub fn new(c: &ClockReport) -> ClockJson {
        ClockJson {
            slow: c
                .slow
                .iter()
                .map(|s| SlowJson {
                    place: report_place(&s.place).0,
                    time_class: s.time_class.as_str(),
                    seconds: (s.seconds * 10.0).round() / 10.0,
                    usual_seconds: (s.usual_seconds * 10.0).round() / 10.0,
                    ratio: (s.ratio() * 100.0).round() / 100.0,
                    trouble: s.trouble,
                })
                .collect(),
            overall: trouble_json(&c.overall),
            openings: c.openings.iter().map(trouble_json).collect(),
            pace: (0..STAGES.len())
                .flat_map(|stage| (0..BANDS.len()).map(move |band| (stage, band)))
                .map(|(stage, band)| {
                    let (share, moves) = c.pace.cell(stage, band);
                    PaceJson {
                        stage: STAGES[stage],
                        clock: BANDS[band],
                        moves,
                        share: share.map(|s| (s * 10_000.0).round() / 10_000.0),
                    }
                })
                .collect(),
        }
    }
}

fn score_text(g: &GamesScoreJson) -> String {
    match (g.score, g.low, g.high) {
        (Some(s), Some(l), Some(h)) => format!(
            "{} games, score {} [{}-{}]",
            g.games,
            pct_text(s),
            pct_text(l),
            pct_text(h)
        ),
        _ => "no games".to_string(),
    }
}

impl std::fmt::Display for ClockJson {
    /// The report's text about time.
    fn fmt(&self, w: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            w,
            "\nWhere you burn your clock (positions where you think longest, against your average move of the time class):"
        )?;
        if self.overall.trouble.games + self.overall.calm.games == 0 {
            return writeln!(w, "(no game with clocks: [%clk] or [%emt] comments)");
        }
        for s in &self.slow {
            writeln!(
                w,
                "- {}\n    {}: {:.1} s a move here, {:.1}x your usual {:.1} s; {} in time trouble",
                place_line(&s.place),
                s.time_class,
                s.seconds,
                s.ratio,
                s.usual_seconds,
                s.trouble
            )?;
        }
        writeln!(
            w,
            "\nIn time trouble (a move with under 10% of the base time, or 10 s, left) or not:"
        )?;
        for t in std::iter::once(&self.overall).chain(&self.openings) {
            writeln!(
                w,
                "- {}: in trouble {}; out of it {}",
                t.opening.as_deref().unwrap_or("all timed games"),
                score_text(&t.trouble),
                score_text(&t.calm)
            )?;
        }
        writeln!(
            w,
            "\nHow much of your clock you spend on a move (the share of the clock left; the mirror's pace where your games have no time):"
        )?;
        for stage in STAGES {
            let cells: Vec<String> = self
                .pace
                .iter()
                .filter(|p| p.stage == stage)
                .map(|p| match p.share {
                    Some(s) => format!("{}: {:.1}% ({} moves)", p.clock, s * 100.0, p.moves),
                    None => format!("{}: no move", p.clock),
                })
                .collect();
            writeln!(w, "- {stage}: {}", cells.join("; "))?;
        }
        Ok(())
    }
}
