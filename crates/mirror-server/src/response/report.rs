//! The report's answer (`/api/v1/report`, `mirror report`): where to study, in SAN,
//! as JSON and as text.

use super::*;

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
