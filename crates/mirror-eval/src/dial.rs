//! The strength dial: the search's weight and budget ([`mirror_engine::search`]) chosen on
//! the player's validation games so that the mirror's mistakes come as near the player's
//! as its top-1 allows. A club player makes more mistakes than a grandmaster; the model of
//! either makes about as many as a model does. `mirror train` tries each weight of
//! [`DIAL_WEIGHTS`] at each budget of [`DIAL_NODES`], with and without Stockfish's own
//! choice ([`DIAL_OWN_SHARE`]; [`settings`]) on a seeded sample of
//! the validation positions out of the book (where the model answers, the only ones the
//! search changes), judges the player's move and the mirror's with Stockfish as
//! `mirror eval` does, and keeps the setting whose mistake share is nearest the player's
//! among those whose top-1 does not fall by more than half a point against no search.
//! Then, with that search, it does the same for the sampling mirror (`play`, `serve`):
//! one seeded draw a position at each temperature of [`DIAL_TEMPERATURES`], the one whose
//! mistakes come nearest the player's kept (a lower one only if it comes half a point
//! nearer).

use std::{path::Path, sync::Arc};

use mirror_core::{
    GameRecord,
    notation::{fen, uci},
};
use mirror_engine::{
    Engine, EngineOptions, ModelFallback, SearchOptions, Searcher, stockfish::Stockfish,
};
use mirror_model::Predictor;
use mirror_store::GraphRead;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Color, Move};

use crate::{
    EvalError, MISTAKE_WIN_PERCENT, TestPosition, draw, probability_of, test_positions, win_before,
    win_loss,
};

/// The weights tried (0: no search; 1: a move a few win% worse than the best searched is
/// all but never played, for the players who rarely err).
pub const DIAL_WEIGHTS: [f64; 6] = [0.0, 0.01, 0.03, 0.1, 0.3, 1.0];
/// The budgets tried, Stockfish's nodes per searched position: at a high weight the
/// search's judgement is what the mirror plays, and 8,000 nodes judge a quiet move better
/// than 2,000 (a master's mirror: 3.5 points more top-1 out of the book, fewer mistakes).
pub const DIAL_NODES: [u32; 2] = [2000, 8000];
/// Stockfish's own choice joins the model's moves after a search of a quarter of the
/// budget (`search_own`): a master's best move the model ranks below its sixth. On
/// Adams's validation games at weight 1 and 8,000 nodes, 2,000 more nodes for it gave
/// 1.3 points more top-1 out of the book, as 32,000 nodes without it did.
pub const DIAL_OWN_SHARE: u32 = 4;
/// Out-of-book validation positions judged at most (a seeded sample).
pub const DIAL_POSITIONS: usize = 2000;
/// Stockfish's depth judging the moves (as `mirror eval`'s default).
pub const DIAL_DEPTH: u32 = 8;
/// The sampling temperatures tried, the model's own distribution first. None is above 1:
/// a sharper distribution makes the sampling mirror err less and match the player more
/// often, a flatter one would cost it matches to err more. On the shared player's
/// validation positions out of the book 0.5 took his sampling mirror's mistakes from 12.2%
/// to 10.9% (he errs in 10.3%; docs/benchmarks.md, "The sampling mirror's temperature").
pub const DIAL_TEMPERATURES: [f64; 6] = [1.0, 0.9, 0.8, 0.7, 0.6, 0.5];

/// How one setting did.
#[derive(Clone, Debug, PartialEq)]
pub struct DialScore {
    /// The weight.
    pub weight: f64,
    /// The nodes (0 with weight 0: no search).
    pub nodes: u32,
    /// The nodes of Stockfish's own choice (0: only the model's moves searched).
    pub own: u32,
    /// Positions where the mirror's move was the player's.
    pub hits: usize,
    /// Positions where the mirror's move lost [`MISTAKE_WIN_PERCENT`] or more.
    pub mistakes: usize,
}

impl DialScore {
    /// The engine's search at this setting.
    fn search(&self) -> SearchOptions {
        SearchOptions {
            nodes: self.nodes,
            weight: self.weight,
            own: self.own,
            ..SearchOptions::default()
        }
    }
}

/// How the sampling mirror did at one temperature (with the chosen search).
#[derive(Clone, Debug, PartialEq)]
pub struct TemperatureScore {
    /// The temperature.
    pub temperature: f64,
    /// The sum over the positions of the probability it gave the player's move (its
    /// expected matches).
    pub expected_hits: f64,
    /// Positions where its draw lost [`MISTAKE_WIN_PERCENT`] or more.
    pub mistakes: usize,
}

/// What [`tune_dial`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct DialTuning {
    /// Positions judged.
    pub positions: usize,
    /// Of them, where the player's move was a mistake.
    pub player_mistakes: usize,
    /// Each setting of [`settings`], in that order.
    pub scores: Vec<DialScore>,
    /// The chosen one, an index into `scores`.
    pub best: usize,
    /// Each temperature of [`DIAL_TEMPERATURES`] with the chosen search, in that order.
    pub temperatures: Vec<TemperatureScore>,
    /// The chosen one, an index into `temperatures`.
    pub temperature: usize,
}

/// A setting of the dial: the search's weight, its nodes, and the nodes of Stockfish's
/// own choice.
pub type Setting = (f64, u32, u32);

/// The settings tried, the cheapest first: no search, then each weight above 0 at each
/// budget of [`DIAL_NODES`], the smaller budget first, each budget first without
/// Stockfish's own choice, then with it ([`DIAL_OWN_SHARE`]).
pub fn settings() -> Vec<Setting> {
    let mut out = vec![(0.0, 0, 0)];
    for nodes in DIAL_NODES {
        for own in [0, nodes / DIAL_OWN_SHARE] {
            out.extend(
                DIAL_WEIGHTS
                    .iter()
                    .filter(|&&w| w > 0.0)
                    .map(|&w| (w, nodes, own)),
            );
        }
    }
    out
}

impl DialTuning {
    /// The chosen settings; weight 0 is no search at all (0 nodes: a search that changes
    /// nothing is not run).
    pub fn search(&self) -> SearchOptions {
        self.scores[self.best].search()
    }

    /// The chosen sampling temperature.
    pub fn chosen_temperature(&self) -> f64 {
        self.temperatures[self.temperature].temperature
    }

    /// One line per setting (the player's mistakes first, the chosen setting marked), then
    /// one per temperature of the sampling mirror.
    pub fn table(&self) -> String {
        let pct = |n: f64| 100.0 * n / self.positions.max(1) as f64;
        let mut out = format!(
            "  the player's mistakes: {:.1}%\n",
            pct(self.player_mistakes as f64)
        );
        for (i, s) in self.scores.iter().enumerate() {
            out.push_str(&format!(
                "  {:<62} top-1 {:5.1}%  mistakes {:5.1}%{}\n",
                setting_words((s.weight, s.nodes, s.own)),
                pct(s.hits as f64),
                pct(s.mistakes as f64),
                if i == self.best { "  (chosen)" } else { "" }
            ));
        }
        out.push_str("  the sampling mirror with that search (play, serve), a draw a position:\n");
        for (i, s) in self.temperatures.iter().enumerate() {
            out.push_str(&format!(
                "  {:<62} top-1 {:5.1}%  mistakes {:5.1}%{}\n",
                format!("temperature {}", s.temperature),
                pct(s.expected_hits),
                pct(s.mistakes as f64),
                if i == self.temperature {
                    "  (chosen)"
                } else {
                    ""
                }
            ));
        }
        out
    }
}

/// A setting in words: `weight 0.3 at 2000 nodes`, `weight 1 at 8000 nodes with
/// Stockfish's own choice at 2000`, or `no search`.
pub fn setting_words((weight, nodes, own): Setting) -> String {
    match (weight > 0.0 && nodes > 0, own) {
        (false, _) => "no search".to_string(),
        (true, 0) => format!("weight {weight} at {nodes} nodes"),
        (true, own) => {
            format!("weight {weight} at {nodes} nodes with Stockfish's own choice at {own}")
        }
    }
}

/// The setting (an index into `scores`) whose mistakes are nearest `player`'s among those
/// whose hits are at least those of the first (no search) less half a point of
/// `positions`; of settings as near, the one with the most hits, then the earlier (the
/// cheaper budget, then the smaller weight).
fn choose(scores: &[DialScore], player: usize, positions: usize) -> usize {
    let floor = scores.first().map_or(0, |s| s.hits) as f64 - positions as f64 / 200.0;
    scores
        .iter()
        .enumerate()
        .filter(|(_, s)| s.hits as f64 >= floor)
        .min_by_key(|(_, s)| (s.mistakes.abs_diff(player), std::cmp::Reverse(s.hits)))
        .map_or(0, |(i, _)| i)
}

/// The temperature (an index into `scores`, highest first) whose mistakes are nearest
/// `player`'s, where a lower temperature is taken only if it comes nearer by half a point
/// of `positions` or more than the one kept so far: one draw a position is noisy, and a
/// lower temperature gives up variety for it (a master's searched distribution is nearly
/// all on one move, and every temperature errs alike within that noise).
fn choose_temperature(scores: &[TemperatureScore], player: usize, positions: usize) -> usize {
    let margin = positions / 200;
    let far = |i: usize| scores[i].mistakes.abs_diff(player);
    (1..scores.len()).fold(0, |kept, i| {
        if far(i) < far(kept) && far(i) + margin <= far(kept) {
            i
        } else {
            kept
        }
    })
}

/// One position's judgements, kept for every setting and temperature tried there: the
/// win% before the move, and the win% each judged move loses.
struct PositionJudge {
    before: f64,
    judged: Vec<(Move, f64)>,
}

impl PositionJudge {
    fn new(sf: &mut Stockfish, pos: &Chess) -> Result<PositionJudge, EvalError> {
        Ok(PositionJudge {
            before: win_before(sf, pos, DIAL_DEPTH)?,
            judged: Vec::new(),
        })
    }

    /// Whether `mv` loses [`MISTAKE_WIN_PERCENT`] or more.
    fn mistake(&mut self, sf: &mut Stockfish, pos: &Chess, mv: Move) -> Result<bool, EvalError> {
        let loss = match self.judged.iter().find(|(m, _)| *m == mv) {
            Some(&(_, l)) => l,
            None => {
                let l = win_loss(sf, pos, self.before, mv, DIAL_DEPTH)?;
                self.judged.push((mv, l));
                l
            }
        };
        Ok(loss >= MISTAKE_WIN_PERCENT)
    }
}

/// Tries each setting of [`settings`] on `player`'s `validation` games out of `book`
/// (their training games only), the model as the fallback, `stockfish` searching and
/// judging. `None` when no validation position is out of the book.
pub fn tune_dial<S: GraphRead>(
    book: S,
    player: &str,
    validation: &[(GameRecord, Color)],
    model: &Arc<Predictor>,
    stockfish: &Path,
) -> Result<Option<DialTuning>, EvalError> {
    let searcher = Arc::new(Searcher::new(stockfish.to_path_buf()));
    let mut engine = Engine::new(book, player, EngineOptions::default());
    engine.set_fallback(Box::new(ModelFallback::new(model.clone())));
    engine.set_searcher(Some(searcher));
    let mut out_of_book = Vec::new();
    for t in test_positions(validation, None) {
        engine.set_game_time_class(t.time_class);
        if engine.book(&t.pos)?.candidates.is_empty() {
            out_of_book.push(t);
        }
    }
    if out_of_book.is_empty() {
        return Ok(None);
    }
    let keep = crate::seeded_sample(out_of_book.len(), DIAL_POSITIONS, 0x6469_616c);
    let mut sf = Stockfish::start(stockfish)?;
    let mut scores: Vec<DialScore> = settings()
        .into_iter()
        .map(|(weight, nodes, own)| DialScore {
            weight,
            nodes,
            own,
            hits: 0,
            mistakes: 0,
        })
        .collect();
    let mut player_mistakes = 0;
    let mut judges = Vec::with_capacity(keep.len());
    for &i in &keep {
        let t = &out_of_book[i];
        engine.set_game_time_class(t.time_class);
        let mut judge = PositionJudge::new(&mut sf, &t.pos)?;
        player_mistakes += usize::from(judge.mistake(&mut sf, &t.pos, t.played)?);
        score_position(&mut engine, &mut sf, t, &mut judge, &mut scores)?;
        judges.push(judge);
    }
    let best = choose(&scores, player_mistakes, keep.len());
    let search = scores[best].search();
    let mut temperatures: Vec<TemperatureScore> = DIAL_TEMPERATURES
        .iter()
        .map(|&temperature| TemperatureScore {
            temperature,
            expected_hits: 0.0,
            mistakes: 0,
        })
        .collect();
    // One uniform number a position, the same at every temperature: a sharper
    // distribution moves the draw towards the likelier moves, not to another draw.
    let mut draws = ChaCha8Rng::seed_from_u64(0x7465_6d70);
    for (&i, judge) in keep.iter().zip(&mut judges) {
        let t = &out_of_book[i];
        let u: f64 = draws.random();
        for s in &mut temperatures {
            engine.set_options(EngineOptions {
                search,
                model_search: false,
                temperature: Some(s.temperature),
                game_time_class: t.time_class,
                ..EngineOptions::sampling()
            });
            let dist = engine.choice_distribution(&t.pos, t.last)?;
            s.expected_hits += probability_of(&dist, &uci(t.played));
            let drawn = draw(&dist, u).ok_or_else(|| {
                EvalError::Internal(format!(
                    "the sampling mirror had no move in {}, where the player moved",
                    fen(&t.pos)
                ))
            })?;
            s.mistakes += usize::from(judge.mistake(&mut sf, &t.pos, drawn)?);
        }
    }
    let temperature = choose_temperature(&temperatures, player_mistakes, keep.len());
    Ok(Some(DialTuning {
        positions: keep.len(),
        player_mistakes,
        scores,
        best,
        temperatures,
        temperature,
    }))
}

/// Judges each setting's choice at `t` (`judge` keeping the judgements), adding to
/// `scores`.
fn score_position<S: GraphRead>(
    engine: &mut Engine<S>,
    sf: &mut Stockfish,
    t: &TestPosition,
    judge: &mut PositionJudge,
    scores: &mut [DialScore],
) -> Result<(), EvalError> {
    for s in scores {
        engine.set_options(EngineOptions {
            search: s.search(),
            model_search: false,
            ..EngineOptions::default()
        });
        let mv = engine.choose_after(&t.pos, t.last)?.mv;
        s.hits += usize::from(mv == t.played);
        s.mistakes += usize::from(judge.mistake(sf, &t.pos, mv)?);
    }
    Ok(())
}

/// Chooses the search's weight and budget for the model saved in `dir` ([`tune_dial`]) on the
/// validation games of `split`, with a book of the training games built in a temporary
/// directory, and records it in `model`'s `meta.json` there (`search`); returns what was
/// done, in words. Without Stockfish, or without validation positions out of the book,
/// nothing is chosen.
pub fn choose_and_record_dial(
    player: &str,
    games: &[(GameRecord, Color)],
    split: mirror_core::split::Fractions,
    model: &mut Predictor,
    dir: &Path,
) -> Result<Vec<String>, EvalError> {
    let Some(stockfish) = mirror_engine::stockfish::find(None)? else {
        return Ok(vec![
            "the strength dial is not chosen: no Stockfish (on PATH or /usr/games/stockfish); the mirror plays without search".to_string(),
        ]);
    };
    let sp = split.split(games.len());
    let (train, validation) = (&games[sp.train.clone()], &games[sp.val.clone()]);
    if validation.is_empty() || train.is_empty() {
        return Ok(vec![format!(
            "the strength dial is not chosen: the split {split} leaves no validation games"
        )]);
    }
    let tmp = tempfile::tempdir().map_err(|source| EvalError::Io {
        what: "cannot create a temporary directory for the book".into(),
        source,
    })?;
    let book = crate::book::book_store(player, train, tmp.path())?;
    let saved = Arc::new(Predictor::load(dir).map_err(|source| EvalError::Model {
        dir: dir.to_path_buf(),
        source,
    })?);
    let Some(tuning) = tune_dial(&book, player, validation, &saved, &stockfish)? else {
        return Ok(vec![
            "the strength dial is not chosen: no validation position is out of the book"
                .to_string(),
        ]);
    };
    let chosen = tuning.search();
    model.meta.search = Some(mirror_model::SearchDial {
        nodes: chosen.nodes,
        top: chosen.top,
        weight: chosen.weight,
        own: chosen.own,
    });
    model.meta.temperature = Some(tuning.chosen_temperature());
    mirror_model::inference::write_meta(&model.meta, dir).map_err(|source| EvalError::Model {
        dir: dir.to_path_buf(),
        source,
    })?;
    Ok(vec![
        format!(
            "the strength dial (the search's weight and nodes of {}), on {} validation positions out of the book judged at depth {DIAL_DEPTH}:",
            stockfish.display(),
            tuning.positions
        ),
        tuning.table().trim_end().to_string(),
        format!(
            "the strength dial: {}, the sampling mirror at temperature {}, recorded in {}",
            setting_words((chosen.weight, chosen.nodes, chosen.own)),
            tuning.chosen_temperature(),
            dir.join("meta.json").display()
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(weight: f64, nodes: u32, hits: usize, mistakes: usize) -> DialScore {
        DialScore {
            weight,
            nodes,
            own: 0,
            hits,
            mistakes,
        }
    }

    #[test]
    fn the_dial_tries_no_search_then_each_weight_at_each_budget_cheapest_first() {
        let s = settings();
        assert_eq!(s[0], (0.0, 0, 0));
        assert_eq!(s.len(), 1 + 2 * 5 * DIAL_NODES.len());
        assert_eq!(s[1], (0.01, 2000, 0));
        assert_eq!(s[5], (1.0, 2000, 0));
        assert_eq!(s[6], (0.01, 2000, 500));
        assert_eq!(s[11], (0.01, 8000, 0));
        assert_eq!(s[20], (1.0, 8000, 2000));
        assert_eq!(setting_words((0.3, 8000, 0)), "weight 0.3 at 8000 nodes");
        assert_eq!(
            setting_words((1.0, 8000, 2000)),
            "weight 1 at 8000 nodes with Stockfish's own choice at 2000"
        );
        assert_eq!(setting_words((0.0, 0, 0)), "no search");
    }

    #[test]
    fn the_dial_matches_the_players_mistakes_without_losing_top_1() {
        // A master: 3% mistakes; the model 9% without search. The setting nearest 3% wins
        // unless its top-1 falls more than half a point (10 of 2000 positions).
        let scores = [
            score(0.0, 0, 800, 180),
            score(0.01, 2000, 805, 140),
            score(0.03, 2000, 810, 90),
            score(0.1, 2000, 812, 64),
            score(0.3, 2000, 780, 50),
        ];
        assert_eq!(choose(&scores, 60, 2000), 3);
        // A club player who errs more than the model: no search.
        assert_eq!(choose(&scores, 200, 2000), 0);
        // Of settings as near, the most top-1, then the earlier (the cheaper budget, then
        // the smaller weight); a setting that loses top-1 is never taken.
        let tied = [
            score(0.0, 0, 800, 100),
            score(0.01, 2000, 800, 80),
            score(0.03, 2000, 700, 60),
            score(0.01, 8000, 800, 80),
            score(1.0, 8000, 830, 62),
            score(0.3, 8000, 820, 100),
        ];
        assert_eq!(
            choose(&tied, 80, 2000),
            1,
            "the cheaper budget of two alike"
        );
        assert_eq!(choose(&tied, 90, 2000), 5, "four as near: the most top-1");
        assert_eq!(choose(&tied[..4], 90, 2000), 0, "three alike: no search");
        assert_eq!(
            choose(&tied, 60, 2000),
            4,
            "more nodes: more top-1, fewer mistakes"
        );
        assert_eq!(choose(&tied, 58, 2000), 4, "the nearest, 0.03, loses top-1");
    }

    #[test]
    fn the_sampling_temperature_nearest_the_players_mistakes_a_lower_one_only_by_half_a_point() {
        let at = |temperature: f64, mistakes: usize| TemperatureScore {
            temperature,
            expected_hits: 0.0,
            mistakes,
        };
        // The shared player's validation positions (2026-12-06): he errs in 206 of 2,000,
        // his sampling mirror in 244 at 1 and 218 at 0.5; 0.5 comes nearest.
        let curve = |mistakes: [usize; 6]| -> Vec<TemperatureScore> {
            DIAL_TEMPERATURES
                .iter()
                .zip(mistakes)
                .map(|(&t, m)| at(t, m))
                .collect()
        };
        let shared = curve([244, 236, 234, 236, 228, 218]);
        assert_eq!(choose_temperature(&shared, 206, 2000), 5);
        // A player who errs more than the mirror at 1 keeps the model's own distribution.
        assert_eq!(choose_temperature(&shared, 300, 2000), 0);
        // Adams's validation positions: he errs in 62; his mirror in 106, 106, 104, 108, 110
        // and 114: no temperature comes half a point (10 positions) nearer than 1.
        let adams = curve([106, 106, 104, 108, 110, 114]);
        assert_eq!(choose_temperature(&adams, 62, 2000), 0);
        // Each step down must come half a point nearer than the one kept: 0.8 is 10
        // nearer than 1, 0.7 only 5 nearer than 0.8, 0.6 10 nearer than 0.8.
        let steps = [
            at(1.0, 120),
            at(0.9, 115),
            at(0.8, 110),
            at(0.7, 105),
            at(0.6, 100),
        ];
        assert_eq!(choose_temperature(&steps, 90, 2000), 4);
        assert_eq!(choose_temperature(&steps[..4], 90, 2000), 2);
        // Two as near: the higher temperature, the more varied mirror.
        let tied = [at(1.0, 120), at(0.9, 100), at(0.8, 90), at(0.7, 80)];
        assert_eq!(choose_temperature(&tied, 95, 20), 1);
        assert_eq!(choose_temperature(&tied, 85, 20), 2);
    }
}
