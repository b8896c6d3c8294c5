//! Preparing against an opponent ([`mirror_store::prep`]) as JSON and as text: shared by
//! `mirror prep` and `GET /api/v1/prep`.

use std::fmt;

use mirror_core::{codec::color_name, notation, openings::Openings};
use mirror_store::{
    GraphStore, StoreError,
    prep::{Backing, LineEnd, Mover, PrepError, PrepLine, PrepOptions, aims, prep},
};
use serde::Serialize;
use shakmaty::{Chess, Color, Position};

use crate::response::OpeningJson;

/// The lines where two players' trees meet, for one colour of the player.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrepJson {
    /// The player preparing.
    pub user: String,
    /// The opponent.
    pub opponent: String,
    /// The player's colour.
    pub color: &'static str,
    /// The lines, likeliest first.
    pub lines: Vec<PrepLineJson>,
    /// The opponent's moves on the lines that the engine says lose ("aim here"), the
    /// likeliest to happen first (empty where nothing is analysed).
    pub aims: Vec<AimJson>,
}

/// An opponent's move the engine says loses, JSON.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AimJson {
    /// The moves to the position before it, SAN.
    pub moves: Vec<String>,
    /// The same in UCI.
    pub uci: Vec<String>,
    /// The opponent's move, SAN.
    pub san: String,
    /// How often they play it there (0-1), and their games there.
    pub share: f64,
    /// Their games at the position.
    pub games: u32,
    /// How likely the position is on the lines (0-1).
    pub reach: f64,
    /// Win% points the move loses for them.
    pub win_loss: f64,
    /// lichess's mark.
    pub judgement: &'static str,
    /// The engine's best move for them there, SAN.
    pub best: Option<String>,
}

/// One line.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrepLineJson {
    /// Its moves in SAN.
    pub moves: Vec<String>,
    /// Its moves in UCI.
    pub uci: Vec<String>,
    /// How likely it is (0-1): the product of each player's share of their move.
    pub probability: f64,
    /// The last named opening on it.
    pub opening: Option<OpeningJson>,
    /// Each move, by whom, with the mover's games and results.
    pub steps: Vec<PrepStepJson>,
    /// Why it stops: `depth`, `userTreeEnds`, `opponentTreeEnds`, `opponentTreeThins`
    /// (out of their book).
    pub end: &'static str,
    /// With `opponentTreeThins`: their games at the last position.
    pub end_games: Option<u32>,
    /// Where the player's most played move does worse, against the opponent's likeliest
    /// reply, than an alternative the player has played.
    pub suggestions: Vec<SuggestionJson>,
}

/// One move of a line.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrepStepJson {
    /// `user` or `opponent`.
    pub by: &'static str,
    /// The move in SAN.
    pub san: String,
    /// The mover's games at the position.
    pub position_games: u32,
    /// The mover's games with this move.
    pub games: u32,
    /// Wins of the mover after it.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses of the mover.
    pub losses: u32,
    /// Its share of the mover's games at the position (0-1).
    pub share: f64,
    /// The mover's score (0-1) and its 95% interval.
    pub score: f64,
    /// Lower bound.
    pub score_low: f64,
    /// Upper bound.
    pub score_high: f64,
    /// Win% points the move loses against the engine's best (where `mirror analyse`
    /// evaluated both positions).
    pub win_loss: Option<f64>,
    /// lichess's mark, where it loses 5 points or more.
    pub judgement: Option<&'static str>,
}

/// A better move than the most played one, against the opponent's likeliest reply.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuggestionJson {
    /// The ply of the choice (0: the first move).
    pub ply: usize,
    /// The most played move, the reply, the player's score after both and the games.
    pub played: [String; 2],
    /// The player's score after the most played move and the reply (0-1).
    pub played_score: f64,
    /// Games of that score.
    pub played_games: u32,
    /// The alternative and its likeliest reply.
    pub instead: [String; 2],
    /// The player's score after them (0-1).
    pub instead_score: f64,
    /// Games of that score.
    pub instead_games: u32,
    /// What backs it: `engine` (the usual move loses 5 win% points more than the
    /// alternative) or `interval` (the alternative's 95% interval lies above the usual
    /// move's).
    pub backing: &'static str,
    /// With `engine`: win% points the usual move loses.
    pub played_loss: Option<f64>,
    /// With `engine`: win% points the alternative loses.
    pub instead_loss: Option<f64>,
}

impl PrepJson {
    /// `lines` of `user` (as `color`) against `opponent`, in words.
    pub fn new(
        user: &str,
        opponent: &str,
        color: Color,
        lines: &[PrepLine],
    ) -> Result<PrepJson, StoreError> {
        let aims = aims(lines).iter().map(aim_json).collect::<Result<_, _>>()?;
        let lines = lines.iter().map(line_json).collect::<Result<_, _>>()?;
        Ok(PrepJson {
            user: user.to_string(),
            opponent: opponent.to_string(),
            color: color_name(color),
            lines,
            aims,
        })
    }

    /// Walks the lines of `user` against `opponent` ([`prep`]) and puts them in words.
    pub fn prepare<S: GraphStore + ?Sized>(
        store: &S,
        user: &str,
        opponent: &str,
        options: &PrepOptions,
    ) -> Result<PrepJson, PrepError> {
        let lines = prep(store, user, opponent, options)?;
        Ok(PrepJson::new(user, opponent, options.color, &lines)?)
    }
}

fn replay_error(mv: mirror_core::MoveCode) -> StoreError {
    StoreError::Corrupt(format!("prep: move {mv} does not replay"))
}

/// Win% points to one decimal.
fn tenth(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn aim_json(a: &mirror_store::prep::Aim) -> Result<AimJson, StoreError> {
    let mut pos = Chess::default();
    let (mut moves, mut uci) = (Vec::new(), Vec::new());
    for code in &a.path {
        let mv = code.to_move(&pos).map_err(|_| replay_error(*code))?;
        moves.push(notation::san(&pos, mv));
        uci.push(code.to_string());
        pos.play_unchecked(mv);
    }
    let mv = a.mv.to_move(&pos).map_err(|_| replay_error(a.mv))?;
    let best = a.best.as_deref().and_then(|b| {
        let m = b
            .parse::<shakmaty::uci::UciMove>()
            .ok()?
            .to_move(&pos)
            .ok()?;
        Some(notation::san(&pos, m))
    });
    Ok(AimJson {
        moves,
        uci,
        san: notation::san(&pos, mv),
        share: a.share,
        games: a.games,
        reach: a.reach,
        win_loss: tenth(a.win_loss),
        judgement: mirror_core::evaluation::Judgement::of(a.win_loss)
            .map_or("", mirror_core::evaluation::Judgement::as_str),
        best,
    })
}

fn line_json(line: &PrepLine) -> Result<PrepLineJson, StoreError> {
    let mut pos = Chess::default();
    let mut path = vec![pos.clone()];
    let (mut moves, mut uci, mut steps) = (Vec::new(), Vec::new(), Vec::new());
    // The position before each move.
    let mut before: Vec<Chess> = Vec::new();
    for s in &line.steps {
        let mv = s.mv.to_move(&pos).map_err(|_| replay_error(s.mv))?;
        let san = notation::san(&pos, mv);
        before.push(pos.clone());
        let interval = s
            .stats
            .score_interval()
            .ok_or_else(|| StoreError::Corrupt(format!("prep: move {} has no games", s.mv)))?;
        steps.push(PrepStepJson {
            by: match s.mover {
                Mover::Me => "user",
                Mover::Them => "opponent",
            },
            san: san.clone(),
            position_games: s.games,
            games: s.stats.games(),
            wins: s.stats.wins,
            draws: s.stats.draws,
            losses: s.stats.losses,
            share: s.share,
            score: interval.score,
            score_low: interval.low,
            score_high: interval.high,
            win_loss: s.win_loss.map(tenth),
            judgement: s
                .win_loss
                .and_then(mirror_core::evaluation::Judgement::of)
                .map(mirror_core::evaluation::Judgement::as_str),
        });
        moves.push(san);
        uci.push(s.mv.to_string());
        pos.play_unchecked(mv);
        path.push(pos.clone());
    }
    let mut suggestions = Vec::new();
    for g in &line.suggestions {
        let at = before.get(g.ply).ok_or_else(|| replay_error(g.played.0))?;
        let pair = |(mv, reply): (mirror_core::MoveCode, mirror_core::MoveCode)| {
            let m = mv.to_move(at).map_err(|_| replay_error(mv))?;
            let mut after = at.clone();
            after.play_unchecked(m);
            let r = reply.to_move(&after).map_err(|_| replay_error(reply))?;
            Ok::<_, StoreError>([notation::san(at, m), notation::san(&after, r)])
        };
        suggestions.push(SuggestionJson {
            ply: g.ply,
            played: pair((g.played.0, g.played.1))?,
            played_score: g.played.2,
            played_games: g.played.3,
            instead: pair((g.alternative.0, g.alternative.1))?,
            instead_score: g.alternative.2,
            instead_games: g.alternative.3,
            backing: match g.backing {
                Backing::Engine { .. } => "engine",
                Backing::Interval => "interval",
            },
            played_loss: match g.backing {
                Backing::Engine { played, .. } => Some(tenth(played)),
                Backing::Interval => None,
            },
            instead_loss: match g.backing {
                Backing::Engine { alternative, .. } => Some(tenth(alternative)),
                Backing::Interval => None,
            },
        });
    }
    let (end, end_games) = match line.end {
        LineEnd::Depth => ("depth", None),
        LineEnd::MyTreeEnds => ("userTreeEnds", None),
        LineEnd::TheirTreeEnds => ("opponentTreeEnds", None),
        LineEnd::TheirTreeThins { games } => ("opponentTreeThins", Some(games)),
    };
    Ok(PrepLineJson {
        moves,
        uci,
        probability: line.probability,
        opening: Openings::builtin().along(&path).map(OpeningJson::from),
        steps,
        end,
        end_games,
        suggestions,
    })
}

impl fmt::Display for PrepJson {
    /// `mirror prep`'s text: a paragraph per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} as {} against {}: {} lines, likeliest first",
            self.user,
            self.color,
            self.opponent,
            self.lines.len()
        )?;
        for (i, l) in self.lines.iter().enumerate() {
            let opening = l
                .opening
                .as_ref()
                .map_or(String::new(), |o| format!("  {} {}", o.eco, o.name));
            writeln!(
                f,
                "\n{}. {} ({:.1}%){opening}",
                i + 1,
                l.moves.join(" "),
                100.0 * l.probability
            )?;
            for s in &l.steps {
                let who = if s.by == "user" {
                    &self.user
                } else {
                    &self.opponent
                };
                writeln!(
                    f,
                    "   {:<6} {who}: {:.0}% of {} games, {} games W/D/L {}/{}/{}, score {:.1}% [{:.0}-{:.0}]{}",
                    format!("{}{}", s.san, s.judgement.map_or("", judgement_symbol)),
                    100.0 * s.share,
                    s.position_games,
                    s.games,
                    s.wins,
                    s.draws,
                    s.losses,
                    100.0 * s.score,
                    100.0 * s.score_low,
                    100.0 * s.score_high,
                    s.win_loss
                        .map_or(String::new(), |l| format!(", loses {l:.1} win%"))
                )?;
            }
            let end = match (l.end, l.end_games) {
                ("opponentTreeThins", Some(n)) => {
                    let games = if n == 1 { "game" } else { "games" };
                    format!("out of {}'s book ({n} {games} here)", self.opponent)
                }
                ("opponentTreeEnds", _) => format!("{} never reached this position", self.opponent),
                ("userTreeEnds", _) => format!("{} never reached this position", self.user),
                _ => "the depth asked for".to_string(),
            };
            writeln!(f, "   ends: {end}")?;
            writeln!(
                f,
                "   practise: mirror play --user {} --color {} --from-moves {:?}",
                // The name came from the store, where only valid names are.
                mirror_core::command_word(&self.opponent).unwrap_or_else(|e| format!("({e})")),
                self.color,
                l.moves.join(" ")
            )?;
            for g in &l.suggestions {
                writeln!(
                    f,
                    "   suggestion at ply {}: {} {} scored {:.1}% in {} games; {} {} scored {:.1}% in {} ({})",
                    g.ply + 1,
                    g.played[0],
                    g.played[1],
                    100.0 * g.played_score,
                    g.played_games,
                    g.instead[0],
                    g.instead[1],
                    100.0 * g.instead_score,
                    g.instead_games,
                    match (g.played_loss, g.instead_loss) {
                        (Some(p), Some(i)) => {
                            format!("the engine: {p:.1} against {i:.1} win% lost")
                        }
                        _ => "the 95% intervals do not overlap".to_string(),
                    }
                )?;
            }
        }
        if !self.aims.is_empty() {
            writeln!(
                f,
                "\nAim here: {}'s moves the engine says lose, likeliest first",
                self.opponent
            )?;
            for a in &self.aims {
                writeln!(
                    f,
                    "- {} {}{}: {:.0}% of {} games there ({:.1}% likely), loses {:.1} win%{}",
                    if a.moves.is_empty() {
                        "start:".to_string()
                    } else {
                        format!("{}:", a.moves.join(" "))
                    },
                    a.san,
                    judgement_symbol(a.judgement),
                    100.0 * a.share,
                    a.games,
                    100.0 * a.reach * a.share,
                    a.win_loss,
                    a.best
                        .as_ref()
                        .map_or(String::new(), |b| format!(" (best: {b})"))
                )?;
            }
        }
        Ok(())
    }
}

/// The symbol of a mark's name (`?!`, `?`, `??`).
fn judgement_symbol(name: &str) -> &'static str {
    use mirror_core::evaluation::Judgement;
    [
        Judgement::Inaccuracy,
        Judgement::Mistake,
        Judgement::Blunder,
    ]
    .into_iter()
    .find(|j| j.as_str() == name)
    .map_or("", Judgement::symbol)
}
