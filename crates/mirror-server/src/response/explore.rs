//! The explorer's answer (`/api/v1/explore`, `mirror explore`): the moves of a position
//! with their results, times and evaluations, as JSON and as a table.

use super::*;

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
