//! The model's weight in the player's book, chosen on their validation games: the
//! `likely` policy adds the model's probabilities to the player's (weighted) games as
//! pseudo-games, and how much the model should say depends on the player and the model
//! (a model that learnt the player's latest games predicts their book moves better than
//! old counts do; a small model of a player with few games, worse). `mirror train` tries
//! each weight of [`BOOK_PRIORS`] on the validation positions that are in the book built
//! from the training games and keeps the one whose first choice matches the player's
//! move most often.

use mirror_core::{GameRecord, notation::uci};
use mirror_engine::{Engine, EngineOptions, policy::habit};
use mirror_model::{
    Predictor,
    inference::{rank_with, softmax},
};
use mirror_store::GraphRead;
use shakmaty::{Color, Move, Position};

use crate::{EvalError, test_positions};

/// The weights tried, in pseudo-games: from "the book decides, the model breaks ties" to
/// "the model decides, the book breaks ties" (a recent game of the time class being
/// played counts 231 games with the default recency and context weights).
pub const BOOK_PRIORS: [f64; 10] = [
    1.0,
    3.0,
    10.0,
    30.0,
    100.0,
    300.0,
    1_000.0,
    10_000.0,
    100_000.0,
    1_000_000.0,
];

/// How one weight did.
#[derive(Clone, Debug, PartialEq)]
pub struct PriorScore {
    /// The weight, in pseudo-games.
    pub prior: f64,
    /// In-book validation positions where its first choice was the player's move.
    pub hits: usize,
}

/// What [`choose_book_prior`] found.
#[derive(Clone, Debug, PartialEq)]
pub enum PriorChoice {
    /// The split leaves no training or no validation games.
    NoValidation,
    /// No validation position is in the book of the training games.
    NotInBook,
    /// How each weight did; `best` is the choice.
    Chosen(PriorTuning),
}

/// Chooses the model's weight in `player`'s book on the validation games of `split`
/// ([`tune_book_prior`]), with a book of the training games built in a temporary
/// directory.
pub fn choose_book_prior(
    player: &str,
    games: &[(GameRecord, Color)],
    split: mirror_core::split::Fractions,
    model: &Predictor,
) -> Result<PriorChoice, EvalError> {
    let sp = split.split(games.len());
    let (train, validation) = (&games[sp.train.clone()], &games[sp.val.clone()]);
    if validation.is_empty() || train.is_empty() {
        return Ok(PriorChoice::NoValidation);
    }
    let tmp = tempfile::tempdir().map_err(|source| EvalError::Io {
        what: "cannot create a temporary directory for the book".into(),
        source,
    })?;
    let book = crate::book::book_store(player, train, tmp.path())?;
    Ok(
        match tune_book_prior(&book, player, validation, model, &EngineOptions::default())? {
            Some(tuning) => PriorChoice::Chosen(tuning),
            None => PriorChoice::NotInBook,
        },
    )
}

/// Chooses the model's weight in the book ([`choose_book_prior`]) and records it in the
/// model's `meta.json` in `dir` (`book_prior`), then the search's weight
/// ([`crate::dial::choose_and_record_dial`], `search`); returns what was done, in words:
/// how each weight did and the choice, or why there is none (then nothing is recorded).
pub fn choose_and_record(
    player: &str,
    games: &[(GameRecord, Color)],
    split: mirror_core::split::Fractions,
    model: &mut Predictor,
    dir: &std::path::Path,
) -> Result<Vec<String>, EvalError> {
    let tuning = match choose_book_prior(player, games, split, model)? {
        PriorChoice::Chosen(tuning) => tuning,
        PriorChoice::NoValidation => return Ok(vec![format!(
            "the model's weight in the book is not chosen: the split {split} leaves no validation games (likely plays with its own weight)"
        )]),
        PriorChoice::NotInBook => return Ok(vec![
            "the model's weight in the book is not chosen: no validation position is in the book of the training games".to_string(),
        ]),
    };
    model.meta.book_prior = Some(tuning.best);
    mirror_model::inference::write_meta(&model.meta, dir).map_err(|source| EvalError::Model {
        dir: dir.to_path_buf(),
        source,
    })?;
    let mut said = vec![
        format!(
            "the model's weight in the book (likely:W, W pseudo-games), in-book top-1 on the {} validation positions in the book of the training games:",
            tuning.positions
        ),
        tuning.table().trim_end().to_string(),
        format!(
            "the model's weight in the book: {} pseudo-games ({:.1}% in book on validation), recorded in {}",
            tuning.best,
            100.0 * tuning.best_top1(),
            dir.join("meta.json").display()
        ),
    ];
    said.extend(crate::dial::choose_and_record_dial(
        player, games, split, model, dir,
    )?);
    Ok(said)
}

/// The outcome of [`tune_book_prior`].
#[derive(Clone, Debug, PartialEq)]
pub struct PriorTuning {
    /// Validation positions in the book (the only ones the weight changes).
    pub positions: usize,
    /// Each weight of [`BOOK_PRIORS`], in that order.
    pub scores: Vec<PriorScore>,
    /// The chosen weight: the most hits; a tie goes to the smaller weight (the player's
    /// own games keep the say).
    pub best: f64,
}

impl PriorTuning {
    /// The chosen weight's share of hits.
    pub fn best_top1(&self) -> f64 {
        let hits = self
            .scores
            .iter()
            .find(|s| s.prior == self.best)
            .map(|s| s.hits)
            .expect("the chosen weight is one of those scored");
        hits as f64 / self.positions.max(1) as f64
    }

    /// One line per weight: "likely:30  64.2%" (the chosen one marked).
    pub fn table(&self) -> String {
        let mut out = String::new();
        for s in &self.scores {
            out.push_str(&format!(
                "  likely:{:<9} {:5.1}%{}\n",
                s.prior,
                100.0 * s.hits as f64 / self.positions.max(1) as f64,
                if s.prior == self.best {
                    "  (chosen)"
                } else {
                    ""
                }
            ));
        }
        out
    }
}

/// Chooses the model's weight in `player`'s book on their `validation` games, with `book`
/// holding their training games only and the engine's other options `opts` (recency, the
/// time class: each position is answered with its own game's). `None` when no validation
/// position is in the book (nothing to choose on).
pub fn tune_book_prior<S: GraphRead>(
    book: S,
    player: &str,
    validation: &[(GameRecord, Color)],
    model: &Predictor,
    opts: &EngineOptions,
) -> Result<Option<PriorTuning>, EvalError> {
    let mut engine = Engine::new(book, player, opts.clone());
    // The in-book positions and their weighted games.
    let mut in_book = Vec::new();
    for t in test_positions(validation, None) {
        engine.set_game_time_class(t.time_class);
        let games = engine.weighted_book(&t.pos)?;
        if !games.is_empty() {
            in_book.push((t, games));
        }
    }
    if in_book.is_empty() {
        return Ok(None);
    }
    let mut hits = [0usize; BOOK_PRIORS.len()];
    for chunk in in_book.chunks(256) {
        let logits = model.logits(
            &chunk
                .iter()
                .map(|(t, _)| (&t.pos, t.last.as_ref()))
                .collect::<Vec<_>>(),
        );
        for ((t, games), l) in chunk.iter().zip(&logits) {
            let prior: Vec<(Move, f64)> = softmax(&rank_with(&t.pos, l));
            let legal = t.pos.legal_moves();
            let played = uci(t.played);
            for (h, w) in hits.iter_mut().zip(BOOK_PRIORS) {
                let dist = habit::blend(games, &legal, w, Some(&prior));
                if dist.first().is_some_and(|(m, _)| uci(*m) == played) {
                    *h += 1;
                }
            }
        }
    }
    let scores: Vec<PriorScore> = BOOK_PRIORS
        .iter()
        .zip(hits)
        .map(|(&prior, hits)| PriorScore { prior, hits })
        .collect();
    // The first, i.e. smallest, of the weights with the most hits.
    let most = hits
        .iter()
        .copied()
        .max()
        .expect("BOOK_PRIORS is not empty");
    let best = scores
        .iter()
        .find(|s| s.hits == most)
        .map(|s| s.prior)
        .expect("one weight has the most hits");
    Ok(Some(PriorTuning {
        positions: in_book.len(),
        scores,
        best,
    }))
}
